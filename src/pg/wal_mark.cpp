#include "../core/generator.hpp"
#include "settings.hpp"
#include "shared_state.hpp"
#include "state_file.hpp"
#include "wal_mark.hpp"

#include "pg_includes.hpp"
#if PG_VERSION_NUM >= 150000
extern "C" {
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "lib/stringinfo.h"
}
#endif

namespace sfpg {

#if PG_VERSION_NUM >= 150000

namespace {

// Custom resource manager id.  128 is RM_EXPERIMENTAL_ID; ids above it are to
// be reserved on the PostgreSQL wiki before a release ("CustomWALResourceManagers").
constexpr RmgrId kRmgrId = 187;
constexpr uint8 kInfoMark = 0x10;

struct MarkRecord {
    int64 mark_unix_ms;  // every id issued before this record has unix ms <= this
    int64 epoch_ms;      // the primary's epoch, for pg_waldump readers
};

// Replays a mark: the standby (or a restored backup, or the primary in crash
// recovery) raises its own mark to it, in shared memory and durably on disk,
// so that after promotion no id at or below it is issued.  Marks only ever
// rise here: the state file may already hold a later mark than the WAL.
void mark_redo(XLogReaderState *record) {
    if ((XLogRecGetInfo(record) & ~XLR_INFO_MASK) != kInfoMark)
        elog(PANIC, "snowflake: unknown WAL record info %u", XLogRecGetInfo(record));
    MarkRecord rec;
    memcpy(&rec, XLogRecGetData(record), sizeof rec);
    SharedState *s = g_shared;
    if (s == nullptr)
        return;
    const int64 mark_ms = rec.mark_unix_ms - g_layout.epoch_ms;
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    const bool raises = raise_word_to_mark(s, mark_ms);
    if (raises)
        s->durable_mark_unix_ms = rec.mark_unix_ms;
    LWLockRelease(&s->lock);
    if (raises)
        write_state_file(current_record(rec.mark_unix_ms));
}

void mark_desc(StringInfo buf, XLogReaderState *record) {
    MarkRecord rec;
    memcpy(&rec, XLogRecGetData(record), sizeof rec);
    appendStringInfo(buf, "mark_unix_ms %lld epoch_ms %lld", static_cast<long long>(rec.mark_unix_ms),
                     static_cast<long long>(rec.epoch_ms));
}

const char *mark_identify(uint8 info) {
    return (info & ~XLR_INFO_MASK) == kInfoMark ? "MARK" : nullptr;
}

RmgrData mark_rmgr = {
    "snowflake", mark_redo, mark_desc, mark_identify, nullptr, nullptr, nullptr, nullptr,
};

}  // namespace

void register_wal_mark_rmgr() { RegisterCustomRmgr(kRmgrId, &mark_rmgr); }

void log_mark(int64_t mark_unix_ms) {
    MarkRecord rec{mark_unix_ms, g_layout.epoch_ms};
    XLogBeginInsert();
    XLogRegisterData(reinterpret_cast<char *>(&rec), sizeof rec);
    // Unimportant for checkpoint and archive_timeout decisions, like
    // standby snapshots: marks alone must not make an idle server look busy.
    XLogSetRecordFlags(XLOG_MARK_UNIMPORTANT);
    XLogFlush(XLogInsert(kRmgrId, kInfoMark));
}

#else

void register_wal_mark_rmgr() {}
void log_mark(int64_t) {}

#endif

}  // namespace sfpg
