// `id integer DEFAULT snowflake_nextval()` is accepted, and then every insert
// fails with "integer out of range" (ids are above 2^31 from half a second
// after the epoch on); `double precision` is worse: ids are rounded to 53
// bits and different ids become equal.  The statement that sets up such a
// default is the cheap place to say so.
//
// A WARNING, not an error: a dump of a table made that way must still
// restore (pg_restore runs the same CREATE TABLE), and the statement is the
// user's to run.  Only statements whose default calls a function named
// snowflake_nextval are looked at further; the look resolves names without
// locking (a WARNING cannot be wrong in a way that matters) and changes
// nothing the statement does.
#include "narrow_default.hpp"
#include "time_ids.hpp"

extern "C" {
#include "catalog/namespace.h"
#include "catalog/pg_type_d.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "parser/parse_func.h"
#include "parser/parse_type.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

namespace {

// Whether a raw expression calls our snowflake_nextval() (a function of that
// name that runs our C symbol, as the name resolves now).
bool is_nextval_call(Node *node, void *) {
    if (node == nullptr)
        return false;
    if (IsA(node, FuncCall)) {
        FuncCall *fc = reinterpret_cast<FuncCall *>(node);
        if (fc->funcname != NIL && fc->args == NIL &&
            strcmp(strVal(llast(fc->funcname)), "snowflake_nextval") == 0) {
            const Oid f = LookupFuncName(fc->funcname, 0, nullptr, true);
            if (OidIsValid(f) && sfpg::is_c_function(f, "snowflake_nextval"))
                return true;
        }
    }
    return raw_expression_tree_walker(node, SF_WALKER(is_nextval_call), nullptr);
}

// The raw DEFAULT expression of a column definition, or null.
Node *column_default(const ColumnDef *def) {
    if (def->raw_default != nullptr)
        return def->raw_default;
    ListCell *lc;
    foreach (lc, def->constraints) {
        const Constraint *c = static_cast<const Constraint *>(lfirst(lc));
        if (IsA(c, Constraint) && c->contype == CONSTR_DEFAULT)
            return c->raw_expr;
    }
    return nullptr;
}

enum class Narrow { No, Overflows, Rounds };

// Whether a value of type (typid, typmod), a domain's base type included,
// cannot hold every snowflake id.
Narrow narrowness(Oid typid, int32 typmod) {
    typid = getBaseTypeAndTypmod(typid, &typmod);
    switch (typid) {
    case INT2OID:
    case INT4OID:
    case OIDOID:
        return Narrow::Overflows;
    case FLOAT4OID:
    case FLOAT8OID:
        return Narrow::Rounds;
    case NUMERICOID: {
        // numeric(p, s) holds p - s integer digits; ids have up to 19.
        if (typmod < static_cast<int32>(VARHDRSZ))
            return Narrow::No;
        const int32 t = typmod - VARHDRSZ;
        const int precision = (t >> 16) & 0xffff;
        const int scale = static_cast<int16>(t & 0xffff);
        return precision - scale < 19 ? Narrow::Overflows : Narrow::No;
    }
    default:
        return Narrow::No;
    }
}

void warn(const char *column, Oid typid, int32 typmod) {
    const Narrow n = narrowness(typid, typmod);
    if (n == Narrow::No)
        return;
    const char *type = format_type_with_typemod(typid, typmod);
    ereport(WARNING,
            (errcode(ERRCODE_DATATYPE_MISMATCH),
             errmsg("column \"%s\" is %s, which cannot hold snowflake ids", column, type),
             n == Narrow::Overflows
                 ? errdetail("Its default calls snowflake_nextval(), whose ids are 64-bit: every "
                             "row that takes the default will fail with an out-of-range error.")
                 : errdetail("Its default calls snowflake_nextval(), whose ids are 64-bit: %s "
                             "rounds them, and different ids would become equal.",
                             type),
             errhint("Declare the column bigint (ALTER TABLE ... ALTER COLUMN \"%s\" TYPE bigint "
                     "changes an existing one).",
                     column)));
}

// A column definition (CREATE TABLE, ADD COLUMN) with its own type.
void check_column_def(const ColumnDef *def) {
    if (def->typeName == nullptr || def->colname == nullptr)
        return;
    Node *expr = column_default(def);
    if (expr == nullptr || !is_nextval_call(expr, nullptr))
        return;
    int32 typmod = -1;
    const Type t = LookupTypeName(nullptr, def->typeName, &typmod, true);
    if (t == nullptr)
        return;  // the statement will say so itself
    const Oid typid = typeTypeId(t);
    ReleaseSysCache(t);
    warn(def->colname, typid, typmod);
}

// ALTER COLUMN ... SET DEFAULT: the column's type is the table's, or the one
// an ALTER COLUMN ... TYPE of the same statement gives it.
void check_set_default(const AlterTableStmt *stmt, const AlterTableCmd *cmd) {
    if (cmd->def == nullptr || cmd->name == nullptr || !is_nextval_call(cmd->def, nullptr))
        return;
    ListCell *lc;
    foreach (lc, stmt->cmds) {
        const AlterTableCmd *other = static_cast<AlterTableCmd *>(lfirst(lc));
        if (other->subtype == AT_AlterColumnType && other->name != nullptr &&
            strcmp(other->name, cmd->name) == 0 && other->def != nullptr &&
            IsA(other->def, ColumnDef)) {
            const TypeName *type = reinterpret_cast<ColumnDef *>(other->def)->typeName;
            int32 typmod = -1;
            const Type t = type ? LookupTypeName(nullptr, type, &typmod, true) : nullptr;
            if (t != nullptr) {
                const Oid typid = typeTypeId(t);
                ReleaseSysCache(t);
                warn(cmd->name, typid, typmod);
            }
            return;
        }
    }
    const Oid rel = RangeVarGetRelid(stmt->relation, NoLock, true);
    if (!OidIsValid(rel))
        return;
    const AttrNumber att = get_attnum(rel, cmd->name);
    if (att == InvalidAttrNumber)
        return;
    Oid typid;
    int32 typmod;
    Oid collation;
    get_atttypetypmodcoll(rel, att, &typid, &typmod, &collation);
    warn(cmd->name, typid, typmod);
}

}  // namespace

namespace sfpg {

void warn_narrow_snowflake_default(Node *tree) {
    ListCell *lc;
    if (IsA(tree, CreateStmt)) {
        foreach (lc, reinterpret_cast<CreateStmt *>(tree)->tableElts)
            if (IsA(lfirst(lc), ColumnDef))
                check_column_def(static_cast<ColumnDef *>(lfirst(lc)));
    } else if (IsA(tree, AlterTableStmt)) {
        const AlterTableStmt *stmt = reinterpret_cast<AlterTableStmt *>(tree);
        foreach (lc, stmt->cmds) {
            const AlterTableCmd *cmd = static_cast<AlterTableCmd *>(lfirst(lc));
            if (cmd->subtype == AT_AddColumn && cmd->def != nullptr && IsA(cmd->def, ColumnDef))
                check_column_def(reinterpret_cast<ColumnDef *>(cmd->def));
            else if (cmd->subtype == AT_ColumnDefault)
                check_set_default(stmt, cmd);
        }
    }
}

}  // namespace sfpg
