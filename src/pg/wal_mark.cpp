#include "../core/generator.hpp"
#include "../core/mark_record.hpp"
#include "node_identity.hpp"
#include "settings.hpp"
#include "shared_state.hpp"
#include "state_file.hpp"
#include "wal_mark.hpp"

#include "pg_includes.hpp"
#if PG_VERSION_NUM >= 150000
extern "C" {
#include "replication/syncrep.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "common/controldata_utils.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
}
#endif

namespace sfpg {

#if PG_VERSION_NUM >= 150000

namespace {

// Custom resource manager id.  128 is RM_EXPERIMENTAL_ID; ids above it are to
// be reserved on the PostgreSQL wiki before a release ("CustomWALResourceManagers").
constexpr RmgrId kRmgrId = 187;
constexpr uint8 kInfoMark = 0x10;

// The record's body, read and checked before anything is believed: a wrong
// length or tag is another format (FATAL rather than a guess), and a mark
// issued under an epoch or layout that makes this server's ids collide with
// the ids it covers is refused, as a start against the state file is.
snowflake::StateRecord checked_mark(XLogReaderState *record, int *version) {
    snowflake::StateRecord rec;
    const snowflake::MarkRecordError e = snowflake::decode_mark_record(
        reinterpret_cast<const unsigned char *>(XLogRecGetData(record)), XLogRecGetDataLen(record),
        &rec, version);
    if (e != snowflake::MarkRecordError::None)
        ereport(FATAL, (errcode(ERRCODE_DATA_CORRUPTED),
                        errmsg("snowflake WAL record at %X/%X cannot be replayed",
                               static_cast<uint32>(record->ReadRecPtr >> 32),
                               static_cast<uint32>(record->ReadRecPtr)),
                        errdetail("The record (%u bytes) %s.", XLogRecGetDataLen(record),
                                  snowflake::mark_record_error_text(e)),
                        errhint("Replay this WAL with the snowflake build that wrote it.")));
    if (*version == 1) {
        // Version 1 recorded the epoch only: the widths cannot be checked.
        const int64 epoch_ms = rec.layout.epoch_ms;
        rec.layout = g_layout;
        rec.layout.epoch_ms = epoch_ms;
    }
    return rec;
}

// Writes the state file with the mark the word holds (the highest replayed),
// if the file holds less (or `always`).
void write_replayed_mark(SharedState *s, bool always = false) {
    const int64 mark_unix = snowflake::word_ms(g_layout, pg_atomic_read_u64(&s->word)) +
                            g_layout.epoch_ms;
    LWLockAcquire(&s->lock, LW_SHARED);
    const bool behind = s->file_mark_unix_ms < mark_unix;
    LWLockRelease(&s->lock);
    if (!behind && !always)
        return;
    write_state_file(current_record(mark_unix));
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    if (s->file_mark_unix_ms < mark_unix)
        s->file_mark_unix_ms = mark_unix;
    LWLockRelease(&s->lock);
}

// End of recovery (promotion, or the end of crash recovery): the node's
// identity history becomes its lineage's, as the last replayed mark had it
// (identity_settle_after_recovery), and the file gets it and the last
// replayed mark before this server writes WAL or issues ids of its own.
void mark_cleanup() {
    SharedState *s = g_shared;
    if (s == nullptr)
        return;
    const bool settled = identity_settle_after_recovery(s);
    if (settled || static_cast<int64>(pg_atomic_read_u64(&s->reserved_ms)) >= 0)
        write_replayed_mark(s, settled);
}

// Whether this recovery raises the word to the marks it replays: set at the
// start of redo (mark_startup).
bool raise_marks = true;

// Crash recovery of this server's own data directory with its state file
// (no archive recovery, no base backup being restored) needs no mark from
// the WAL: every mark is written to the file before the WAL, and a shutdown
// lowers the file's mark to the last id's millisecond, which is at or above
// every id issued.  Raising the word to the WAL's marks there would only
// start the server up to a reservation (a second) ahead of the clock after
// an immediate shutdown.  Everywhere else -- a standby, a point-in-time
// restore, a base backup (its state file is a copy from before the WAL it
// replays), a node whose state file is missing -- the marks are what keeps
// ids above those of the node that wrote the WAL.
void mark_startup() {
    raise_marks = true;
    SharedState *s = g_shared;
    if (s == nullptr || ArchiveRecoveryRequested || GetRecoveryState() != RECOVERY_STATE_CRASH)
        return;
    bool crc_ok = false;
    ControlFileData *control = get_controlfile(DataDir, &crc_ok);
    const bool from_backup = !crc_ok || !XLogRecPtrIsInvalid(control->backupStartPoint) ||
                             control->backupEndRequired;
    pfree(control);
    LWLockAcquire(&s->lock, LW_SHARED);
    const bool have_file = s->file_mark_unix_ms >= 0;
    LWLockRelease(&s->lock);
    raise_marks = from_backup || !have_file;
}

// While replaying, the state file is written at most once per this much of
// mark (about 20 marks of an active primary), and at the end of recovery and
// at a clean shutdown (record_final_mark).
constexpr int64 kRedoFileLagMs = 10000;

// Replays a mark: the standby (or a restored backup, or the primary in crash
// recovery) raises its own mark to it in shared memory, so that after
// promotion no id at or below it is issued.  Marks only ever rise here: the
// state file may already hold a later mark than the WAL.
//
// The state file follows lazily, not at every mark: a standby replaying an
// hour of an active primary's WAL would otherwise make tens of thousands of
// fsyncs in the single startup process.  The WAL itself holds the marks
// until a restartpoint passes them; the file is written whenever it lags
// the replayed mark by kRedoFileLagMs, at the end of recovery (mark_cleanup)
// and at a clean shutdown.
void mark_redo(XLogReaderState *record) {
    if ((XLogRecGetInfo(record) & ~XLR_INFO_MASK) != kInfoMark)
        elog(PANIC, "snowflake: unknown WAL record info %u", XLogRecGetInfo(record));
    int version;
    const snowflake::StateRecord rec = checked_mark(record, &version);
    const snowflake::ConfigVerdict v =
        snowflake::check_config_change(rec, g_layout, guc_datacenter_id, guc_worker_id);
    if (v.refused_setting)
        refuse_config_change(FATAL, rec, v, true);
    SharedState *s = g_shared;
    if (s == nullptr)
        return;
    if (!raise_marks)
        return;
    const int64 mark_ms = rec.mark_unix_ms - g_layout.epoch_ms;
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    const bool raises = raise_word_to_mark(s, mark_ms);
    const bool write = raises && rec.mark_unix_ms - s->file_mark_unix_ms >= kRedoFileLagMs;
    // A standby or a restore learns its lineage's identity history from the
    // marks (crash recovery keeps the state file's, written before them).
    if (version >= 3 && ArchiveRecoveryRequested)
        identity_note_lineage(s, rec);
    LWLockRelease(&s->lock);
    if (write)
        write_replayed_mark(s);
}

void mark_desc(StringInfo buf, XLogReaderState *record) {
    snowflake::StateRecord rec;
    int version;
    const snowflake::MarkRecordError e = snowflake::decode_mark_record(
        reinterpret_cast<const unsigned char *>(XLogRecGetData(record)), XLogRecGetDataLen(record),
        &rec, &version);
    if (e != snowflake::MarkRecordError::None) {
        appendStringInfo(buf, "unreadable: %s", snowflake::mark_record_error_text(e));
        return;
    }
    appendStringInfo(buf, "mark_unix_ms %lld epoch_ms %lld", static_cast<long long>(rec.mark_unix_ms),
                     static_cast<long long>(rec.layout.epoch_ms));
    if (version >= 2)
        appendStringInfo(buf, " layout %d/%d/%d", rec.layout.datacenter_bits,
                         rec.layout.worker_bits, rec.layout.sequence_bits);
    if (version >= 3) {
        const snowflake::IdentityHistory &h = rec.history;
        appendStringInfo(buf, " identity %lld/%lld since %lld", static_cast<long long>(rec.datacenter_id),
                         static_cast<long long>(rec.worker_id),
                         static_cast<long long>(h.since_unix_ms));
        if (!h.retired.none())
            appendStringInfo(buf, " retired %lld/%lld until %lld",
                             static_cast<long long>(h.retired.datacenter_id),
                             static_cast<long long>(h.retired.worker_id),
                             static_cast<long long>(h.retired_until_unix_ms));
    }
}

const char *mark_identify(uint8 info) {
    return (info & ~XLR_INFO_MASK) == kInfoMark ? "MARK" : nullptr;
}

RmgrData mark_rmgr = {
    "snowflake", mark_redo, mark_desc, mark_identify, mark_startup, mark_cleanup, nullptr, nullptr,
};

}  // namespace

void register_wal_mark_rmgr() { RegisterCustomRmgr(kRmgrId, &mark_rmgr); }

uint64_t log_mark(const snowflake::StateRecord &r) {
    unsigned char rec[snowflake::kMarkRecordLen];
    snowflake::encode_mark_record(r, rec);
    XLogBeginInsert();
    XLogRegisterData(reinterpret_cast<char *>(rec), sizeof rec);
    // Unimportant for checkpoint and archive_timeout decisions, like
    // standby snapshots: marks alone must not make an idle server look busy.
    XLogSetRecordFlags(XLOG_MARK_UNIMPORTANT);
    const XLogRecPtr end = XLogInsert(kRmgrId, kInfoMark);
    XLogFlush(end);
    return end;
}

bool wait_for_sync_standbys(uint64_t lsn) {
    // Does nothing unless synchronous_standby_names names standbys; the
    // reserver runs with synchronous_commit = on, so "confirmed" means
    // flushed there, and a promoted standby replays it.
    g_shared->reserver_waits_for_standbys = true;
    SyncRepWaitForLSN(lsn, false);
    g_shared->reserver_waits_for_standbys = false;
    return !ProcDiePending;
}

#else  // PostgreSQL 13-14: untested (never built here; see pg_includes.hpp)

// No custom WAL resource managers before 15: no marks in the WAL, so a
// promoted standby is not protected (README: "PostgreSQL versions").
void register_wal_mark_rmgr() {}
uint64_t log_mark(const snowflake::StateRecord &) { return 0; }
bool wait_for_sync_standbys(uint64_t) { return true; }

#endif

}  // namespace sfpg
