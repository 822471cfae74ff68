#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include "node_secret.hpp"
#include "durable_file.hpp"

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

// Makes the file, whole or absent after a crash.
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
    (void)write_file_durably(kSecretTempFile, kSecretFile, text, sizeof text, ERROR);
    memcpy(buf, text, kNodeSecretLen);
    buf[kNodeSecretLen] = '\0';
}

}  // namespace

// The secret never changes while the server runs: read (or made) once per
// process.
void node_secret(char *buf, size_t len) {
    static char cached[kNodeSecretLen + 1];
    Assert(len > kNodeSecretLen);
    (void)len;
    if (cached[0] == '\0' && !read_secret(cached))
        make_secret(cached);
    memcpy(buf, cached, kNodeSecretLen + 1);
}

}  // namespace sfpg
