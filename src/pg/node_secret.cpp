#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "node_secret.hpp"

#include "pg_includes.hpp"

namespace sfpg {

namespace {

constexpr const char *kSecretFile = "snowflake.node_secret";
constexpr const char *kSecretTempFile = "snowflake.node_secret.tmp";

bool is_hex(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return true;
}

// Reads the file into buf; false if there is none.
bool read_secret(char *buf) {
    const int fd = OpenTransientFile(kSecretFile, O_RDONLY | PG_BINARY);
    if (fd < 0) {
        if (errno == ENOENT)
            return false;
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not open file \"%s\": %m", kSecretFile)));
    }
    char text[kNodeSecretLen + 2];
    const ssize_t n = read(fd, text, sizeof text);
    const int save_errno = errno;
    CloseTransientFile(fd);
    if (n < 0) {
        errno = save_errno;
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not read file \"%s\": %m", kSecretFile)));
    }
    const bool ok = (n == static_cast<ssize_t>(kNodeSecretLen) ||
                     (n == static_cast<ssize_t>(kNodeSecretLen) + 1 && text[kNodeSecretLen] == '\n')) &&
                    is_hex(text, kNodeSecretLen);
    if (!ok)
        ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
                        errmsg("snowflake node secret file \"%s\" is malformed", kSecretFile),
                        errdetail("It must hold 64 lowercase hex digits and a line break."),
                        errhint("Restore it from this node's backup or from the primary it was "
                                "copied from. The registry refuses this node's rows to a new "
                                "secret; see \"The registry\" in the snowflake documentation "
                                "(docs/operations.md).")));
    memcpy(buf, text, kNodeSecretLen);
    buf[kNodeSecretLen] = '\0';
    return true;
}

// Makes the file: written and synced under a temporary name, then renamed
// and the directory synced, so that it is whole or absent after a crash.
void make_secret(char *buf) {
    unsigned char raw[kNodeSecretLen / 2];
    if (!pg_strong_random(raw, sizeof raw))
        ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                        errmsg("could not generate a random snowflake node secret")));
    static const char digits[] = "0123456789abcdef";
    char text[kNodeSecretLen + 1];
    for (size_t i = 0; i < sizeof raw; i++) {
        text[2 * i] = digits[raw[i] >> 4];
        text[2 * i + 1] = digits[raw[i] & 15];
    }
    text[kNodeSecretLen] = '\n';
    const int fd = OpenTransientFilePerm(kSecretTempFile, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY,
                                         S_IRUSR | S_IWUSR);
    if (fd < 0)
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not create file \"%s\": %m", kSecretTempFile)));
    errno = 0;
    const bool written = write(fd, text, sizeof text) == static_cast<ssize_t>(sizeof text);
    if (!written && errno == 0)
        errno = ENOSPC;
    const bool synced = written && pg_fsync(fd) == 0;
    const int save_errno = errno;
    CloseTransientFile(fd);
    if (!synced) {
        errno = save_errno;
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not write file \"%s\": %m", kSecretTempFile)));
    }
    (void)durable_rename(kSecretTempFile, kSecretFile, ERROR);
    memcpy(buf, text, kNodeSecretLen);
    buf[kNodeSecretLen] = '\0';
}

}  // namespace

void node_secret(char *buf, size_t len) {
    Assert(len > kNodeSecretLen);
    (void)len;
    if (!read_secret(buf))
        make_secret(buf);
}

}  // namespace sfpg
