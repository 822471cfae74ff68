// PostgreSQL's planner, catalog and range-type headers, for the time
// predicates (time_*.cpp).  Kept apart from pg_includes.hpp so that the rest
// of the glue does not compile them.
#pragma once

#include "pg_includes.hpp"

extern "C" {
#include "access/genam.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_language.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/supportnodes.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/cost.h"
#include "optimizer/planner.h"
#include "optimizer/restrictinfo.h"
#include "access/stratnum.h"
#include "utils/catcache.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rangetypes.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
}

// C++ spellings of PostgreSQL macros that are C only: copyObject uses GNU C's
// typeof, list_make1/2 compound literals.
namespace sfpg {

template <typename T>
inline T *copy_node(const T *node) {
    return static_cast<T *>(copyObjectImpl(node));
}

inline List *list_of(void *a) { return lappend(NIL, a); }
inline List *list_of(void *a, void *b) { return lappend(lappend(NIL, a), b); }

}  // namespace sfpg

// A tree walker as the walker functions take it: before PostgreSQL 16 they
// take bool (*)() (cast through void (*)(), which GCC's
// -Wcast-function-type allows); from 16 on the macros cast it themselves.
#if PG_VERSION_NUM >= 160000
#define SF_WALKER(fn) (fn)
#else
#define SF_WALKER(fn) reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(fn))
#endif
