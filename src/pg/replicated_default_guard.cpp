// The guard that keeps the copies of a replicated Citus table from silently
// diverging.
//
// ALTER TABLE t ADD COLUMN c bigint DEFAULT snowflake_nextval() fills the
// existing rows by evaluating the default once per row -- and on a table
// that Citus keeps in several copies (a reference table, or a distributed
// table with citus.shard_replication_factor > 1) every copy evaluates it on
// its own node, under its own identity: the copies then hold different ids
// for the same rows, and nothing reports it.  The same holds for ALTER
// COLUMN ... TYPE ... USING snowflake_nextval().  Those two statements are
// refused on such a table when it has rows; the message gives the backfill
// path (add the column without a default, fill it from the coordinator,
// then set the default).
//
// Why in the ProcessUtility hook (utility_hook.cpp), and not an event
// trigger at ddl_command_start: whether the table has rows can only be asked
// through Citus (its rows live on the workers), and an event trigger fires
// inside Citus's processing of the ALTER TABLE, where Citus answers every
// query on a distributed table with no rows (it takes them for
// PostgreSQL's constraint checks).  Citus must come first in
// shared_preload_libraries, so snowflake's hook, installed after Citus's,
// runs before it: where Citus runs its own "is the table empty" check for
// nextval() defaults, before anything is locked or sent to a node.
//
// Harmless to the host: it reads the statement's parse tree, and touches
// the catalog only when a default or USING expression calls a function
// named snowflake_nextval.  Then it checks that the call is this library's
// function and that Citus is installed in this database, reads Citus's
// catalog, and only for a replicated table asks for one row.  DDL that
// Citus applies on a node (citus.enable_ddl_propagation is off there) is
// not checked again: the node that received the statement decided.
#include "pg_includes.hpp"
#include "replicated_default_guard.hpp"

#include "firewall.hpp"

extern "C" {
#include "catalog/namespace.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "parser/parse_func.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

namespace {

// Whether a function is the extension's snowflake_nextval: the C function
// of that name in this library (whatever schema the extension is in).
bool is_snowflake_nextval(Oid f) {
    HeapTuple tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(f));
    if (!HeapTupleIsValid(tup))
        return false;
    bool ours = false;
    if (reinterpret_cast<Form_pg_proc>(GETSTRUCT(tup))->prolang == ClanguageId) {
        bool src_null, bin_null;
        const Datum src = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &src_null);
        const Datum bin = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_probin, &bin_null);
        if (!src_null && !bin_null) {
            const char *library = TextDatumGetCString(bin);
            const char *base = strrchr(library, '/');
            base = base ? base + 1 : library;
            ours = strcmp(TextDatumGetCString(src), "snowflake_nextval") == 0 &&
                   (strcmp(base, "snowflake") == 0 || strcmp(base, "snowflake.so") == 0);
        }
    }
    ReleaseSysCache(tup);
    return ours;
}

// Whether a raw expression calls the extension's snowflake_nextval():
// context is an Oid, set to the function found.
bool calls_nextval(Node *node, void *context) {
    if (node == nullptr)
        return false;
    if (IsA(node, FuncCall)) {
        FuncCall *fc = reinterpret_cast<FuncCall *>(node);
        // A name comparison first: only a call named snowflake_nextval costs
        // a catalog lookup.
        if (fc->args == NIL && strcmp(strVal(llast(fc->funcname)), "snowflake_nextval") == 0) {
            const Oid f = LookupFuncName(fc->funcname, 0, nullptr, true);
            if (OidIsValid(f) && is_snowflake_nextval(f)) {
                *static_cast<Oid *>(context) = f;
                return true;
            }
        }
    }
#if PG_VERSION_NUM >= 160000
    return raw_expression_tree_walker(node, calls_nextval, context);
#else
    // PostgreSQL 15's walker takes an unprototyped function pointer; the
    // cast through void (*)(void) is the one GCC accepts without warning.
    return raw_expression_tree_walker(
        node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(calls_nextval)),
        context);
#endif
}

enum class Rewrite { None, AddColumn, UsingType };

// The first subcommand that would fill existing rows with snowflake_nextval():
// ADD COLUMN with it in the default, or ALTER COLUMN TYPE with it in USING.
Rewrite find_rewrite(AlterTableStmt *stmt, Oid *fn, const char **column) {
    ListCell *lc;
    foreach (lc, stmt->cmds) {
        AlterTableCmd *cmd = reinterpret_cast<AlterTableCmd *>(lfirst(lc));
        if (!IsA(cmd, AlterTableCmd) || cmd->def == nullptr || !IsA(cmd->def, ColumnDef))
            continue;
        ColumnDef *def = reinterpret_cast<ColumnDef *>(cmd->def);
        if (cmd->subtype == AT_AddColumn) {
            if (calls_nextval(def->raw_default, fn)) {
                *column = def->colname;
                return Rewrite::AddColumn;
            }
            ListCell *cc;
            foreach (cc, def->constraints) {
                Constraint *c = reinterpret_cast<Constraint *>(lfirst(cc));
                if (IsA(c, Constraint) && c->contype == CONSTR_DEFAULT &&
                    calls_nextval(c->raw_expr, fn)) {
                    *column = def->colname;
                    return Rewrite::AddColumn;
                }
            }
        } else if (cmd->subtype == AT_AlterColumnType && calls_nextval(def->raw_default, fn)) {
            *column = cmd->name;
            return Rewrite::UsingType;
        }
    }
    return Rewrite::None;
}

// Whether Citus sends this statement on to the other nodes (off while Citus
// itself applies DDL it received, and when a user turned propagation off).
bool citus_propagates_ddl() {
    const char *v = GetConfigOption("citus.enable_ddl_propagation", true, false);
    bool on = true;
    return v == nullptr || !parse_bool(v, &on) || on;
}

// Through SPI, in the caller's transaction: whether some shard of the table
// has more than one placement (Citus's catalog), and whether the table has a
// row (a query Citus routes to one copy).  Citus's catalog tables live in
// pg_catalog once the extension is installed.
void replicated_and_rows(Oid rel, bool *replicated, bool *has_rows) {
    *replicated = *has_rows = false;
    if (SPI_connect() != SPI_OK_CONNECT)
        elog(ERROR, "snowflake: SPI_connect failed");
    Oid argtypes[1] = {OIDOID};
    Datum args[1] = {ObjectIdGetDatum(rel)};
    int rc = SPI_execute_with_args(
        "SELECT 1 FROM pg_catalog.pg_dist_shard s JOIN pg_catalog.pg_dist_placement p "
        "ON p.shardid OPERATOR(pg_catalog.=) s.shardid "
        "WHERE s.logicalrelid OPERATOR(pg_catalog.=) $1 "
        "GROUP BY s.shardid HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 1 LIMIT 1",
        1, argtypes, args, nullptr, true, 1);
    if (rc != SPI_OK_SELECT)
        elog(ERROR, "snowflake: reading Citus's shard placements failed (SPI code %d)", rc);
    *replicated = SPI_processed > 0;
    if (*replicated) {
        const char *name = quote_qualified_identifier(get_namespace_name(get_rel_namespace(rel)),
                                                      get_rel_name(rel));
        rc = SPI_execute(psprintf("SELECT 1 FROM %s LIMIT 1", name), true, 1);
        if (rc != SPI_OK_SELECT)
            elog(ERROR, "snowflake: looking for a row of %s failed (SPI code %d)", name, rc);
        *has_rows = SPI_processed > 0;
    }
    SPI_finish();
}

// The table's primary key, for the backfill statement of the hint: its
// columns quoted and comma-separated (*cols), and the join condition of
// tables "t" and "new_ids" on them (*join).  False if it has none.
bool primary_key(Oid rel, const char **cols, const char **join) {
    MemoryContext caller = CurrentMemoryContext;
    if (SPI_connect() != SPI_OK_CONNECT)
        elog(ERROR, "snowflake: SPI_connect failed");
    Oid argtypes[1] = {OIDOID};
    Datum args[1] = {ObjectIdGetDatum(rel)};
    const int rc = SPI_execute_with_args(
        "SELECT pg_catalog.string_agg(c.q, ', ' ORDER BY k.n), "
        "pg_catalog.string_agg('t.' OPERATOR(pg_catalog.||) c.q OPERATOR(pg_catalog.||) "
        "' = new_ids.' OPERATOR(pg_catalog.||) c.q, ' AND ' ORDER BY k.n) "
        "FROM pg_catalog.pg_index i, "
        "LATERAL pg_catalog.unnest(i.indkey::pg_catalog.int2[]) WITH ORDINALITY AS k(attnum, n), "
        "LATERAL (SELECT pg_catalog.quote_ident(a.attname) AS q FROM pg_catalog.pg_attribute a "
        "WHERE a.attrelid OPERATOR(pg_catalog.=) $1 AND a.attnum OPERATOR(pg_catalog.=) k.attnum) c "
        "WHERE i.indrelid OPERATOR(pg_catalog.=) $1 AND i.indisprimary",
        1, argtypes, args, nullptr, true, 1);
    bool found = false;
    if (rc == SPI_OK_SELECT && SPI_processed == 1) {
        char *c = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
        char *j = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
        if (c != nullptr && j != nullptr) {
            // Copied out: SPI_finish frees SPI's memory.
            *cols = MemoryContextStrdup(caller, c);
            *join = MemoryContextStrdup(caller, j);
            found = true;
        }
    }
    SPI_finish();
    return found;
}

void check_alter_table(AlterTableStmt *stmt) {
#if PG_VERSION_NUM >= 140000
    if (stmt->objtype != OBJECT_TABLE)
#else  // PostgreSQL 13: untested (never built here; see pg_includes.hpp)
    if (stmt->relkind != OBJECT_TABLE)
#endif
        return;
    Oid nextval = InvalidOid;
    const char *column = nullptr;
    const Rewrite what = find_rewrite(stmt, &nextval, &column);
    if (what == Rewrite::None || !OidIsValid(get_extension_oid("citus", true)) ||
        !citus_propagates_ddl())
        return;
    // The table as the command will see it; a missing one is the command's
    // own error to report.  No lock yet: ALTER TABLE (Citus's processing
    // first) takes its own, and the SELECT below only needs the snapshot.
    const Oid rel = RangeVarGetRelid(stmt->relation, NoLock, true);
    if (!OidIsValid(rel))
        return;
    bool replicated, has_rows;
    replicated_and_rows(rel, &replicated, &has_rows);
    if (!replicated || !has_rows)
        return;
    const char *table = quote_qualified_identifier(get_namespace_name(get_rel_namespace(rel)),
                                                   get_rel_name(rel));
    const char *col = quote_identifier(column);
    const char *fn = quote_qualified_identifier(get_namespace_name(get_func_namespace(nextval)),
                                                "snowflake_nextval");
    // The backfill: ids made once (on one copy, by a subplan whose result
    // every copy receives), joined on the table's key.  Not on ctid: each
    // copy has its own.
    const char *target = what == Rewrite::AddColumn ? col
                                                    : quote_identifier(psprintf("%s_new", column));
    const char *cols = "key_columns", *join = "t.key_columns = new_ids.key_columns";
    const bool has_key = primary_key(rel, &cols, &join);
    const char *fill = psprintf(
        "WITH new_ids AS MATERIALIZED (SELECT %s, %s() AS new_id FROM %s) UPDATE %s t SET %s = "
        "new_ids.new_id FROM new_ids WHERE %s%s",
        cols, fn, table, table, target, join,
        has_key ? "" : ", over the columns of a unique key of the table");
    if (what == Rewrite::AddColumn)
        ereport(ERROR,
                (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                 errmsg("cannot add column %s with DEFAULT snowflake_nextval() to %s: the table "
                        "has rows and Citus keeps it in several copies",
                        col, table),
                 errdetail("Each copy would fill the existing rows with ids of its own node, and "
                           "the copies would silently differ."),
                 errhint("Add the column without a default (ALTER TABLE %s ADD COLUMN %s bigint), "
                         "fill it from the coordinator (%s), then set the default (ALTER TABLE %s "
                         "ALTER COLUMN %s SET DEFAULT %s()).",
                         table, col, fill, table, col, fn)));
    ereport(ERROR,
            (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
             errmsg("cannot rewrite column %s of %s USING snowflake_nextval(): the table has rows "
                    "and Citus keeps it in several copies",
                    col, table),
             errdetail("Each copy would compute its own ids for the same rows, and the copies "
                       "would silently differ."),
             errhint("Add a new column (ALTER TABLE %s ADD COLUMN %s bigint), fill it from the "
                     "coordinator (%s), then drop the old column and rename the new one.",
                     table, target, fill)));
}

}  // namespace

namespace sfpg {

void guard_replicated_default(AlterTableStmt *stmt) {
    run_guarded([&] { check_alter_table(stmt); });
}

}  // namespace sfpg
