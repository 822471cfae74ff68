// The one place that includes PostgreSQL's headers.
//
// PostgreSQL's headers are C and redefine names the C++ standard library uses
// (port.h's snprintf/printf/strerror, c.h's Min/Max/_), so every C++ header a
// translation unit needs must come before this one.  Core headers refuse to
// be included after it (they #error on POSTGRES_H).
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

extern "C" {
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xlog.h"
#include "common/int.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/timestamp.h"
}

// PostgreSQL versions.  Tested (test/run-all.sh, every run): 15, 17, 18.
// 16 uses exactly the code paths of 15 and 17 (there is no branch for it)
// but is not tested.  13 and 14 only have version guards, marked
// "PostgreSQL 13-14: untested" where they are: they have never been built
// here, and 13-14 lack custom WAL resource managers (wal_mark.cpp), so
// failover is not protected there.  Guards: shared_state.cpp (shared memory
// requested in _PG_init, no shmem_request_hook), settings.cpp
// (EmitWarningsOnPlaceholders for MarkGUCPrefixReserved), id_source.cpp
// (random() for pg_prng), wal_mark.cpp (no WAL marks).
#if PG_VERSION_NUM < 130000
#error "snowflake needs PostgreSQL 13 or later"
#endif
