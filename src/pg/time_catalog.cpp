#include "time_ids.hpp"

#include "time_catalog.hpp"

namespace sfpg {

namespace {

TimeCatalog catalog;
bool catalog_valid = false;  // filled since the last invalidation
bool callback_registered = false;
// Invalidations seen: a fill that an invalidation overtook (catalog reads can
// process invalidation messages) is not marked valid.
uint64 invalidations = 0;

#if PG_VERSION_NUM >= 190000
void drop_catalog(Datum, SysCacheIdentifier, uint32) {
#else
void drop_catalog(Datum, int, uint32) {
#endif
    catalog_valid = false;
    ++invalidations;
}

const char *const kBoundNames[kTimeCmps] = {"snowflake_min_id_since", "snowflake_min_id_after",
                                            "snowflake_max_id_until", "snowflake_max_id_before"};
const char *const kBoundLayoutSymbols[kTimeCmps] = {
    "snowflake_min_id_since_with_layout", "snowflake_min_id_after_with_layout",
    "snowflake_max_id_until_with_layout", "snowflake_max_id_before_with_layout"};
const char *const kBoundDateSymbols[kTimeCmps] = {
    "snowflake_min_id_since_date", "snowflake_min_id_after_date", "snowflake_max_id_until_date",
    "snowflake_max_id_before_date"};
const char *const kBoundTimestampSymbols[kTimeCmps] = {
    "snowflake_min_id_since_timestamp", "snowflake_min_id_after_timestamp",
    "snowflake_max_id_until_timestamp", "snowflake_max_id_before_timestamp"};

Oid function_in(Oid nsp, const char *name, const Oid *argtypes, int nargs, const char *symbol) {
    oidvector *args = buildoidvector(argtypes, nargs);
    const Oid fn = GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid, CStringGetDatum(name),
                                   PointerGetDatum(args), ObjectIdGetDatum(nsp));
    return OidIsValid(fn) && is_c_function(fn, symbol) ? fn : InvalidOid;
}

// The schema of the extension: where its snowflake_timestamp(bigint) is.
Oid extension_schema(Oid ext) {
    Oid nsp = InvalidOid;
    CatCList *list = SearchSysCacheList1(PROCNAMEARGSNSP, CStringGetDatum("snowflake_timestamp"));
    for (int i = 0; i < list->n_members && !OidIsValid(nsp); i++) {
        HeapTuple tup = &list->members[i]->tuple;
        const auto *proc = reinterpret_cast<Form_pg_proc>(GETSTRUCT(tup));
        if (proc->pronargs == 1 && getExtensionOfObject(ProcedureRelationId, proc->oid) == ext)
            nsp = proc->pronamespace;
    }
    ReleaseSysCacheList(list);
    return nsp;
}

void fill(TimeCatalog *c, Oid nsp) {
    const Oid one[] = {INT8OID};
    const Oid layout[] = {INT8OID, INT8OID, INT4OID, INT4OID, INT4OID};
    const Oid bound_layout[] = {TIMESTAMPTZOID, INT8OID, INT4OID, INT4OID, INT4OID};
    const Oid range[] = {TSTZRANGEOID};
    const Oid id_range[] = {INT8OID, TSTZRANGEOID};
    c->ts = function_in(nsp, "snowflake_timestamp", one, 1, "snowflake_timestamp");
    c->ts_layout =
        function_in(nsp, "snowflake_timestamp", layout, 5, "snowflake_timestamp_with_layout");
    c->made_within =
        function_in(nsp, "snowflake_made_within", id_range, 2, "snowflake_made_within");
    c->min_within =
        function_in(nsp, "snowflake_min_id_within", range, 1, "snowflake_min_id_within");
    c->max_within =
        function_in(nsp, "snowflake_max_id_within", range, 1, "snowflake_max_id_within");
    c->ready = OidIsValid(c->ts) && OidIsValid(c->ts_layout) && OidIsValid(c->made_within) &&
               OidIsValid(c->min_within) && OidIsValid(c->max_within);
    for (int i = 0; i < kTimeCmps; i++) {
        const Oid tz = TIMESTAMPTZOID, date = DATEOID, ts = TIMESTAMPOID;
        c->bound[i] = function_in(nsp, kBoundNames[i], &tz, 1, kBoundNames[i]);
        c->bound_layout[i] =
            function_in(nsp, kBoundNames[i], bound_layout, 5, kBoundLayoutSymbols[i]);
        c->bound_date[i] = function_in(nsp, kBoundNames[i], &date, 1, kBoundDateSymbols[i]);
        c->bound_timestamp[i] = function_in(nsp, kBoundNames[i], &ts, 1, kBoundTimestampSymbols[i]);
        c->ready = c->ready && OidIsValid(c->bound[i]) && OidIsValid(c->bound_layout[i]) &&
                   OidIsValid(c->bound_date[i]) && OidIsValid(c->bound_timestamp[i]);
    }
    c->int8_ge = get_opfamily_member(INTEGER_BTREE_FAM_OID, INT8OID, INT8OID,
                                     BTGreaterEqualStrategyNumber);
    c->int8_le =
        get_opfamily_member(INTEGER_BTREE_FAM_OID, INT8OID, INT8OID, BTLessEqualStrategyNumber);
    c->ready = c->ready && OidIsValid(c->int8_ge) && OidIsValid(c->int8_le);
}

}  // namespace

const TimeCatalog &time_catalog() {
    if (catalog_valid)
        return catalog;
    if (!callback_registered) {
        CacheRegisterSyscacheCallback(PROCOID, drop_catalog, 0);
        callback_registered = true;
    }
    const uint64 seen = invalidations;
    TimeCatalog c{};
    const Oid ext = get_extension_oid("snowflake", true);
    const Oid nsp = OidIsValid(ext) ? extension_schema(ext) : InvalidOid;
    if (OidIsValid(nsp))
        fill(&c, nsp);
    catalog = c;
    catalog_valid = invalidations == seen;
    return catalog;
}

}  // namespace sfpg
