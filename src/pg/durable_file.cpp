#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durable_file.hpp"

#include "pg_includes.hpp"

namespace sfpg {

// Two fsyncs: the new file's contents before the rename (so the name never
// points at a file that is not on disk), and the directory after it (so the
// rename is).  Nothing else needs syncing: the old file is replaced whole,
// never modified.  An fsync failure is reported at `elevel` itself, not
// escalated to PANIC as for data files (data_sync_retry): every write
// rewrites the whole file from scratch, so no later fsync can pass off pages
// a failed one lost, and the old file stays in place until the rename.
bool write_file_durably(const char *tmp, const char *path, const char *buf, size_t len,
                        int elevel) {
    const int fd = OpenTransientFilePerm(tmp, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY,
                                         S_IRUSR | S_IWUSR);
    if (fd < 0) {
        ereport(elevel, (errcode_for_file_access(), errmsg("could not create file \"%s\": %m", tmp)));
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
                         errmsg("could not %s file \"%s\": %m", failed, tmp)));
        return false;
    }
    if (rename(tmp, path) != 0) {
        ereport(elevel, (errcode_for_file_access(),
                         errmsg("could not rename file \"%s\" to \"%s\": %m", tmp, path)));
        return false;
    }
    return fsync_fname_ext(".", true, false, elevel) == 0;
}

}  // namespace sfpg
