// The node's secret: 64 hex digits in snowflake.node_secret in the data
// directory, made once from a strong random source.  The registrar sends it
// with every call in the node's name, and the registry keeps its SHA-256 on
// the node's rows, so that a caller who knows the node key but not the
// secret cannot renew, retire or take over the node's pair.  A standby made
// with pg_basebackup inherits it, so a promoted standby proves it descends
// from its old primary.
#pragma once

#include <cstddef>

namespace sfpg {

constexpr size_t kNodeSecretLen = 64;

// Copies the secret (NUL-terminated) into buf (at least kNodeSecretLen + 1
// bytes), making the file first if there is none.  ereports ERROR when the
// file is unreadable or malformed, or cannot be made.
void node_secret(char *buf, size_t len);

}  // namespace sfpg
