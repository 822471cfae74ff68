// The node identity, the layout and the clock policy belong to the node, not
// to a session (no session may give itself another identity), so PostgreSQL
// refuses SET of them; its message does not say where they are set, and a
// person who tries SET is left stuck.  The same refusal, with that said.
#include "setting_statements.hpp"
#include "settings.hpp"

#include "pg_includes.hpp"
extern "C" {
#include "access/xact.h"
#include "nodes/parsenodes.h"
}

namespace {

const VariableSetStmt *set_statement(Node *tree) {
    if (IsA(tree, VariableSetStmt))
        return reinterpret_cast<VariableSetStmt *>(tree);
    // ALTER ROLE / DATABASE ... RESET succeeds in PostgreSQL (it removes a
    // value that cannot be there): only their SET is refused.
    const VariableSetStmt *s = nullptr;
    if (IsA(tree, AlterRoleSetStmt))
        s = reinterpret_cast<AlterRoleSetStmt *>(tree)->setstmt;
    else if (IsA(tree, AlterDatabaseSetStmt))
        s = reinterpret_cast<AlterDatabaseSetStmt *>(tree)->setstmt;
    return s != nullptr && (s->kind == VAR_SET_VALUE || s->kind == VAR_SET_CURRENT) ? s : nullptr;
}

}  // namespace

namespace sfpg {

void refuse_session_setting(Node *tree, bool top_level) {
    const VariableSetStmt *s = set_statement(tree);
    if (s == nullptr || s->name == nullptr || s->kind == VAR_SET_MULTI || s->kind == VAR_RESET_ALL)
        return;
    const char *name = nullptr;
    const int context = restricted_setting_context(s->name, &name);
    if (context >= 0 && s->is_local && IsA(tree, VariableSetStmt))
        WarnNoTransactionBlock(top_level, "SET LOCAL");
    if (context == PGC_SIGHUP)
        ereport(ERROR, (errcode(ERRCODE_CANT_CHANGE_RUNTIME_PARAM),
                        errmsg("parameter \"%s\" cannot be changed now", s->name),
                        errhint("%s is the node's, not a session's: set it in postgresql.conf, "
                                "or as a superuser with ALTER SYSTEM, then reload the "
                                "configuration (SELECT pg_reload_conf()).",
                                name)));
    if (context == PGC_POSTMASTER)
        ereport(ERROR,
                (errcode(ERRCODE_CANT_CHANGE_RUNTIME_PARAM),
                 errmsg("parameter \"%s\" cannot be changed without restarting the server",
                        s->name),
                 errhint("%s is the node's, not a session's: set it in postgresql.conf, or as a "
                         "superuser with ALTER SYSTEM, then restart the server.",
                         name)));
}

}  // namespace sfpg
