// Replacing a small file in the data directory so that, after a crash, it is
// either the old file or the new one, whole.
#pragma once

#include <cstddef>

namespace sfpg {

// Writes buf to tmp (mode 0600), fsyncs it, renames it over path and fsyncs
// the directory.  Reports a failure at elevel (below ERROR it returns false
// and leaves the old file in place; at ERROR it does not return).
bool write_file_durably(const char *tmp, const char *path, const char *buf, size_t len,
                        int elevel);

}  // namespace sfpg
