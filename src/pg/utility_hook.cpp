// snowflake's ProcessUtility hook: a few statements get a look before they
// run.
//
//   - SET / RESET / ALTER ROLE|DATABASE ... SET of a setting that only the
//     configuration changes: PostgreSQL's own refusal, with a HINT that says
//     where it is set (setting_statements.hpp);
//   - CREATE TABLE / ALTER TABLE giving a too narrow column a default that
//     calls snowflake_nextval(): a WARNING (narrow_default.hpp);
//   - with Citus (Citus in shared_preload_libraries, or
//     snowflake.citus_database set): ALTER TABLE passes the replicated-default
//     guard (replicated_default_guard.hpp), which refuses filling a
//     replicated Citus table's rows per copy; and DROP DATABASE of
//     snowflake.citus_database first asks the Citus identity reader,
//     connected to it, to leave (citus_identity.hpp), as Citus stops its own
//     maintenance daemon, so that the drop is not refused for a session of
//     ours.
//
// Harmless to the host: installed only while preloading; every statement
// goes on to the previous hook (or the standard one) unchanged, after a test
// of its kind.  A statement is only ever refused where PostgreSQL refuses it
// too (the SET), or by the Citus guard.  Nothing is checked in binary-upgrade
// mode or for commands run as part of another (PROCESS_UTILITY_SUBCOMMAND).
#include <cstring>

#include "settings.hpp"

#include "citus_identity.hpp"
#include "narrow_default.hpp"
#include "replicated_default_guard.hpp"
#include "setting_statements.hpp"
#include "utility_hook.hpp"

#include "pg_includes.hpp"
extern "C" {
#include "tcop/utility.h"
#include "utils/varlena.h"
}

namespace {

ProcessUtility_hook_type prev_process_utility = nullptr;

// Whether the Citus checks apply (fixed while preloading).
bool citus_checks = false;

void snowflake_process_utility(PlannedStmt *pstmt, const char *query_string, bool read_only_tree,
                               ProcessUtilityContext context, ParamListInfo params,
                               QueryEnvironment *query_env, DestReceiver *dest,
                               QueryCompletion *qc) {
    Node *tree = pstmt->utilityStmt;
    if (tree != nullptr && context != PROCESS_UTILITY_SUBCOMMAND && !IsBinaryUpgrade) {
        switch (nodeTag(tree)) {
        case T_VariableSetStmt:
        case T_AlterRoleSetStmt:
        case T_AlterDatabaseSetStmt:
            sfpg::refuse_session_setting(tree, context == PROCESS_UTILITY_TOPLEVEL);
            break;
        case T_CreateStmt:
            sfpg::warn_narrow_snowflake_default(tree);
            break;
        case T_AlterTableStmt:
            sfpg::warn_narrow_snowflake_default(tree);
            if (citus_checks)
                sfpg::guard_replicated_default(reinterpret_cast<AlterTableStmt *>(tree));
            break;
        case T_DropdbStmt:
            if (citus_checks && sfpg::citus_configured() &&
                strcmp(reinterpret_cast<DropdbStmt *>(tree)->dbname, sfpg::guc_citus_database) ==
                    0)
                sfpg::citus_reader_leave_database();
            break;
        default:
            break;
        }
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

void install_utility_hook() {
    citus_checks = citus_preloaded() || citus_configured();
    prev_process_utility = ProcessUtility_hook;
    ProcessUtility_hook = snowflake_process_utility;
}

}  // namespace sfpg
