// The per-id path: takes ids from the shared generator, waiting (never while
// holding the lock) or reporting errors as the clock policy says.
#pragma once

#include <cstdint>

namespace sfpg {

// Ereports ERROR unless this backend may generate ids now (preloaded, a node
// identity configured or claimed from the registry, not in recovery).
void check_can_generate();

// Takes up to `want` consecutive ids (all in one millisecond); returns how
// many, the first in *first.  ereports ERROR when no id can be issued.
int64_t take_ids(int64_t want, int64_t *first);

// Takes one id (snowflake_nextval's path: returned, not stored through a
// pointer, so that the common case needs no stack-protector check).
int64_t take_id();

}  // namespace sfpg
