#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

#include "state_file.hpp"
#include "durable_file.hpp"

#include "pg_includes.hpp"

namespace sfpg {

namespace {

// The file is read when the server starts, which the error stops.
constexpr const char *kCorruptHint =
    "Find out why (disk, manual edit) and restore the file from a backup if you can. "
    "Otherwise move snowflake.state aside and start the server only once the wall clock is "
    "past every id this node ever issued; see \"The state file\" in the snowflake documentation (docs/operations.md).";

}  // namespace

bool read_state_file(snowflake::StateRecord *out) {
    int fd = OpenTransientFile(kStateFile, O_RDONLY | PG_BINARY);
    if (fd < 0) {
        if (errno == ENOENT)
            return false;
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not open snowflake state file \"%s\": %m", kStateFile),
                        errhint("%s", kCorruptHint)));
    }
    char buf[snowflake::kStateRecordMaxLen + 1];
    ssize_t n = read(fd, buf, sizeof buf);
    int save_errno = errno;
    CloseTransientFile(fd);
    if (n < 0) {
        errno = save_errno;
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not read snowflake state file \"%s\": %m", kStateFile),
                        errhint("%s", kCorruptHint)));
    }
    snowflake::RecordError e = static_cast<size_t>(n) > snowflake::kStateRecordMaxLen
                                   ? snowflake::RecordError::BadLine
                                   : snowflake::parse_state_record(buf, static_cast<size_t>(n), out);
    if (e != snowflake::RecordError::None)
        ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
                        errmsg("snowflake state file \"%s\" is corrupt", kStateFile),
                        errdetail("The file %s.", snowflake::record_error_text(e)),
                        errhint("%s", kCorruptHint)));
    return true;
}

namespace {

// Reports at `elevel`; below ERROR, returns false instead of throwing.
bool write_state_file_at(const snowflake::StateRecord &rec, int elevel) {
    char buf[snowflake::kStateRecordMaxLen];
    size_t len = snowflake::format_state_record(rec, buf, sizeof buf);
    if (len == 0) {
        elog(elevel, "snowflake state record does not fit its buffer");
        return false;
    }
    return write_file_durably(kStateTempFile, kStateFile, buf, len, elevel);
}

}  // namespace

void write_state_file(const snowflake::StateRecord &rec) { (void)write_state_file_at(rec, ERROR); }

bool write_state_file_or_log(const snowflake::StateRecord &rec) {
    return write_state_file_at(rec, LOG);
}

}  // namespace sfpg
