#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state_file.hpp"

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
//
// Two fsyncs: the new file's contents before the rename (so the name never
// points at a file that is not on disk), and the directory after it (so the
// rename is).  Nothing else needs syncing: the old file is replaced whole,
// never modified.  An fsync failure is reported at `elevel` itself, not
// escalated to PANIC as for data files (data_sync_retry): every write
// rewrites the whole file from scratch, so no later fsync can pass off pages
// a failed one lost, and the old file stays in place until the rename.
bool write_state_file_at(const snowflake::StateRecord &rec, int elevel) {
    char buf[snowflake::kStateRecordMaxLen];
    size_t len = snowflake::format_state_record(rec, buf, sizeof buf);
    if (len == 0) {
        elog(elevel, "snowflake state record does not fit its buffer");
        return false;
    }

    int fd = OpenTransientFilePerm(kStateTempFile, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY,
                                   S_IRUSR | S_IWUSR);
    if (fd < 0) {
        ereport(elevel, (errcode_for_file_access(),
                         errmsg("could not create file \"%s\": %m", kStateTempFile)));
        return false;
    }
    errno = 0;
    const bool written = write(fd, buf, len) == static_cast<ssize_t>(len);
    if (!written && errno == 0)
        errno = ENOSPC;
    const char *failed = !written ? "write" : pg_fsync(fd) != 0 ? "fsync" : nullptr;
    int save_errno = errno;
    if (CloseTransientFile(fd) != 0 && failed == nullptr) {
        failed = "close";
        save_errno = errno;
    }
    if (failed != nullptr) {
        errno = save_errno;
        ereport(elevel, (errcode_for_file_access(),
                         errmsg("could not %s file \"%s\": %m", failed, kStateTempFile)));
        return false;
    }
    if (rename(kStateTempFile, kStateFile) != 0) {
        ereport(elevel, (errcode_for_file_access(),
                         errmsg("could not rename file \"%s\" to \"%s\": %m", kStateTempFile,
                                kStateFile)));
        return false;
    }
    return fsync_fname_ext(".", true, false, elevel) == 0;
}

}  // namespace

void write_state_file(const snowflake::StateRecord &rec) { (void)write_state_file_at(rec, ERROR); }

bool write_state_file_or_log(const snowflake::StateRecord &rec) {
    return write_state_file_at(rec, LOG);
}

}  // namespace sfpg
