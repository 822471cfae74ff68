// SQL functions that issue ids: snowflake_nextval() and snowflake_generate(n);
// and snowflake_lastval(), the last id snowflake_nextval() returned in this
// session.
#include "id_source.hpp"

#include "firewall.hpp"

namespace {

constexpr int32 kMaxBatch = 1000000;

// snowflake_generate's state between calls (palloc'd in the SRF context).
struct GenerateState {
    int64 next;        // next id of the current block
    int64 block_left;  // ids left in the current block
    int64 total_left;  // ids still to return, including the block's
};

// The last id snowflake_nextval() returned in this process (this session's
// backend; a parallel worker's own ids stay in the worker), as lastval()
// keeps the last nextval().  Kept across rollbacks, as lastval() is: the id
// was issued all the same.  snowflake_generate() leaves it alone: it hands
// out a set, and a set read through a cursor has no "last" one yet.  -1:
// none yet (ids are never negative), so that keeping it is one store per id.
int64 last_nextval = -1;

}  // namespace

SNOWFLAKE_ENTRY(snowflake_nextval) {
    (void)fcinfo;
    const int64_t id = sfpg::take_id();
    last_nextval = id;
    PG_RETURN_INT64(id);
}

SNOWFLAKE_ENTRY(snowflake_lastval) {
    (void)fcinfo;
    if (last_nextval < 0)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("snowflake_lastval is not yet defined in this session"),
                        errdetail("snowflake_lastval() returns the last id that "
                                  "snowflake_nextval() returned in this session, and it has not "
                                  "been called yet; snowflake_generate() does not count."),
                        errhint("Call it after snowflake_nextval(), or after an INSERT whose "
                                "column default calls it; INSERT ... RETURNING id gives the ids "
                                "directly.")));
    PG_RETURN_INT64(last_nextval);
}

SNOWFLAKE_ENTRY(snowflake_generate) {
    FuncCallContext *funcctx;
    if (SRF_IS_FIRSTCALL()) {
        const int32 n = PG_GETARG_INT32(0);
        if (n < 1 || n > kMaxBatch)
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("snowflake_generate: n must be between 1 and %d, not %d",
                                   kMaxBatch, n)));
        sfpg::check_can_generate();
        funcctx = SRF_FIRSTCALL_INIT();
        GenerateState *st = static_cast<GenerateState *>(
            MemoryContextAllocZero(funcctx->multi_call_memory_ctx, sizeof(GenerateState)));
        st->total_left = n;
        funcctx->user_fctx = st;
    }
    funcctx = SRF_PERCALL_SETUP();
    GenerateState *st = static_cast<GenerateState *>(funcctx->user_fctx);
    if (st->total_left == 0)
        SRF_RETURN_DONE(funcctx);
    // One lock acquisition per block: a block is every id left in the
    // current millisecond (up to what is still wanted).
    if (st->block_left == 0)
        st->block_left = sfpg::take_ids(st->total_left, &st->next);
    const int64 id = st->next++;
    st->block_left--;
    st->total_left--;
    SRF_RETURN_NEXT(funcctx, Int64GetDatum(id));
}
