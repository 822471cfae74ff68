// snowflake's ProcessUtility hook: two statements get a look before they run.
//
//   - ALTER TABLE: the replicated-default guard (replicated_default_guard.hpp)
//     refuses filling a replicated Citus table's rows per copy;
//   - DROP DATABASE of snowflake.citus_database: the Citus identity reader,
//     connected to it, is asked to leave first (citus_identity.hpp), as
//     Citus stops its own maintenance daemon, so that the drop is not
//     refused for a session of ours.
//
// Harmless to the host: installed only while preloading, and only where it
// can matter -- Citus in shared_preload_libraries (Citus cannot run
// otherwise), or snowflake.citus_database set; a server without Citus gets
// no hook at all.  Every statement goes on to the previous hook (or the
// standard one) unchanged, after one tag test for every other statement.
// Nothing is checked in binary-upgrade mode or for commands run as part of
// another (PROCESS_UTILITY_SUBCOMMAND).
#include <cstring>

#include "citus_identity.hpp"
#include "replicated_default_guard.hpp"
#include "settings.hpp"
#include "utility_hook.hpp"

#include "pg_includes.hpp"
extern "C" {
#include "tcop/utility.h"
#include "utils/varlena.h"
}

namespace {

ProcessUtility_hook_type prev_process_utility = nullptr;

void snowflake_process_utility(PlannedStmt *pstmt, const char *query_string, bool read_only_tree,
                               ProcessUtilityContext context, ParamListInfo params,
                               QueryEnvironment *query_env, DestReceiver *dest,
                               QueryCompletion *qc) {
    Node *tree = pstmt->utilityStmt;
    if (tree != nullptr && context != PROCESS_UTILITY_SUBCOMMAND && !IsBinaryUpgrade) {
        if (IsA(tree, AlterTableStmt))
            sfpg::guard_replicated_default(reinterpret_cast<AlterTableStmt *>(tree));
        else if (IsA(tree, DropdbStmt) && sfpg::citus_configured() &&
                 strcmp(reinterpret_cast<DropdbStmt *>(tree)->dbname, sfpg::guc_citus_database) ==
                     0)
            sfpg::citus_reader_leave_database();
    }
    if (prev_process_utility)
        prev_process_utility(pstmt, query_string, read_only_tree, context, params, query_env, dest,
                             qc);
    else
        standard_ProcessUtility(pstmt, query_string, read_only_tree, context, params, query_env,
                                dest, qc);
}

// Whether Citus is in shared_preload_libraries (as "citus", "citus.so" or a
// path to either).
bool citus_preloaded() {
    const char *list = GetConfigOption("shared_preload_libraries", true, false);
    if (list == nullptr)
        return false;
    char *copy = pstrdup(list);
    List *names = nullptr;
    bool found = false;
    if (SplitDirectoriesString(copy, ',', &names)) {
        ListCell *lc;
        foreach (lc, names) {
            const char *name = static_cast<const char *>(lfirst(lc));
            const char *base = strrchr(name, '/');
            base = base ? base + 1 : name;
            found = found || strcmp(base, "citus") == 0 || strcmp(base, "citus.so") == 0;
        }
    }
    list_free_deep(names);
    pfree(copy);
    return found;
}

}  // namespace

namespace sfpg {

bool install_utility_hook() {
    if (!citus_preloaded() && !citus_configured())
        return false;
    prev_process_utility = ProcessUtility_hook;
    ProcessUtility_hook = snowflake_process_utility;
    return true;
}

}  // namespace sfpg
