#include <cstring>

#include "time_catalog.hpp"

namespace sfpg {

namespace {

// Whether probin names this library: "$libdir/snowflake", or any path whose
// last component is snowflake (with or without a suffix such as ".so").
bool our_library(const char *probin) {
    const char *base = strrchr(probin, '/');
    base = base != nullptr ? base + 1 : probin;
    const size_t n = strlen("snowflake");
    return strncmp(base, "snowflake", n) == 0 &&
           (base[n] == '\0' || (base[n] == '.' && strchr(base + n + 1, '.') == nullptr));
}

TimeFn by_symbol(const char *symbol) {
    static const struct {
        const char *symbol;
        TimeFn fn;
    } known[] = {{"snowflake_timestamp", TimeFn::Timestamp},
                 {"snowflake_timestamp_with_layout", TimeFn::TimestampLayout},
                 {"snowflake_made_within", TimeFn::MadeWithin},
                 {"snowflake_min_id_since", TimeFn::MinSince},
                 {"snowflake_min_id_after", TimeFn::MinAfter},
                 {"snowflake_max_id_until", TimeFn::MaxUntil},
                 {"snowflake_max_id_before", TimeFn::MaxBefore},
                 {"snowflake_min_id_within", TimeFn::MinWithin},
                 {"snowflake_max_id_within", TimeFn::MaxWithin}};
    for (const auto &k : known)
        if (strcmp(symbol, k.symbol) == 0)
            return k.fn;
    return TimeFn::Other;
}

}  // namespace

TimeFn time_function(Oid fn) {
    if (fn < FirstNormalObjectId)
        return TimeFn::Other;
    HeapTuple tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
    if (!HeapTupleIsValid(tup))
        return TimeFn::Other;
    TimeFn result = TimeFn::Other;
    if (reinterpret_cast<Form_pg_proc>(GETSTRUCT(tup))->prolang == ClanguageId) {
        bool bin_null, src_null;
        const Datum bin = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_probin, &bin_null);
        const Datum src = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &src_null);
        char buf[MAXPGPATH];
        if (!bin_null && !src_null) {
            text_to_cstring_buffer(DatumGetTextPP(bin), buf, sizeof buf);
            if (our_library(buf)) {
                text_to_cstring_buffer(DatumGetTextPP(src), buf, sizeof buf);
                result = by_symbol(buf);
            }
        }
    }
    ReleaseSysCache(tup);
    return result;
}

Oid int8_operator(StrategyNumber strategy) {
    return get_opfamily_member(INTEGER_BTREE_FAM_OID, INT8OID, INT8OID, strategy);
}

}  // namespace sfpg
