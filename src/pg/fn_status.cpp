// snowflake_status(): one row describing the generator (the view of the same
// name selects from it).
#include "node_identity.hpp"
#include "settings.hpp"
#include "shared_state.hpp"
#include "wall_clock.hpp"

#include "firewall.hpp"
#include "sql_values.hpp"

namespace {

enum StatusColumn {
    kEpoch,
    kTimestampBits,
    kDatacenterBits,
    kWorkerBits,
    kSequenceBits,
    kDatacenterId,
    kWorkerId,
    kPolicy,
    kMaxBackwardMs,
    kRandomStart,
    kLastId,
    kIdsIssued,
    kExhaustions,
    kBackwardEvents,
    kMaxBackwardStepMs,
    kBorrowedMs,
    kDurableMark,
    kDurableWrites,
    kLifetimeEnd,
    kIdentitySource,  // 1.4
    kIdentitySince,   // 1.5
    kRetiredIdentity,
    kRetiredUntil,
    kIdentityNotBefore,  // 1.6
    kRegistrySkewMs,
    kRegistrySkewErrorMs,
    kNumColumns
};

}  // namespace

SNOWFLAKE_ENTRY(snowflake_status) {
    sfpg::SharedState *s = sfpg::g_shared;
    if (s == nullptr)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("snowflake is not loaded"),
                        errhint("add 'snowflake' to shared_preload_libraries and restart the "
                                "server")));
    // Copy under the lock, format after releasing it.
    LWLockAcquire(&s->lock, LW_SHARED);
    const snowflake::GeneratorState gen = s->gen;
    const uint64 durable_writes = s->durable_writes;
    const int64 file_mark_unix = s->file_mark_unix_ms;
    LWLockRelease(&s->lock);
    const uint64 word = pg_atomic_read_u64(&s->word);
    // The lock-free path counts per process: sum the slots.
    uint64 ids_issued = 0, waits = 0;
    int64 last_id = -1;
    for (int i = 0; i < s->n_counters; i++) {
        sfpg::BackendCounters *c = &s->counters()[i];
        ids_issued += pg_atomic_read_u64(&c->ids_issued);
        waits += pg_atomic_read_u64(&c->sequence_waits);
        last_id = Max(last_id, static_cast<int64>(pg_atomic_read_u64(&c->last_id)));
    }

    const snowflake::Layout &l = sfpg::g_layout;
    const int64 now = sfpg::wall_clock_unix_ms() - l.epoch_ms;
    TupleDesc tupdesc;
    if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
        elog(ERROR, "return type must be a row type");
    tupdesc = BlessTupleDesc(tupdesc);

    Datum v[kNumColumns];
    bool nulls[kNumColumns] = {};
    v[kEpoch] = sfpg::unix_ms_to_timestamptz(l.epoch_ms);
    v[kTimestampBits] = Int32GetDatum(l.timestamp_bits());
    v[kDatacenterBits] = Int32GetDatum(l.datacenter_bits);
    v[kWorkerBits] = Int32GetDatum(l.worker_bits);
    v[kSequenceBits] = Int32GetDatum(l.sequence_bits);
    // The identity in use: configured (or kept), or claimed from the registry.
    sfpg::IdentityView id;
    const bool has_identity = sfpg::identity_in_use(&id);
    v[kDatacenterId] = Int32GetDatum(id.datacenter_id);
    v[kWorkerId] = Int32GetDatum(id.worker_id);
    nulls[kWorkerId] = !has_identity;
    v[kPolicy] = CStringGetTextDatum(snowflake::clock_policy_name(
        static_cast<snowflake::ClockPolicy>(sfpg::guc_clock_policy)));
    v[kMaxBackwardMs] = Int32GetDatum(sfpg::guc_max_clock_backward_ms);
    v[kRandomStart] = BoolGetDatum(sfpg::guc_random_sequence_start);
    v[kLastId] = Int64GetDatum(last_id);
    nulls[kLastId] = last_id < 0;
    v[kIdsIssued] = Int64GetDatum(static_cast<int64>(ids_issued));
    v[kExhaustions] = Int64GetDatum(static_cast<int64>(waits));
    v[kBackwardEvents] = Int64GetDatum(static_cast<int64>(gen.backward_events));
    v[kMaxBackwardStepMs] = Int64GetDatum(gen.max_backward_ms);
    const int64 word_ms = snowflake::word_ms(l, word);
    v[kBorrowedMs] = Int64GetDatum(word_ms > now ? word_ms - now : 0);
    // The mark in force: in the state file, or (on a standby, after redo)
    // in the WAL.  (The usable mark comes down to the last id at an identity
    // change, until the next reservation; the file keeps the higher one.)
    int64 mark = static_cast<int64>(pg_atomic_read_u64(&s->reserved_ms));
    if (file_mark_unix >= 0 && file_mark_unix - l.epoch_ms > mark)
        mark = file_mark_unix - l.epoch_ms;
    v[kDurableMark] = mark < 0 ? Datum(0) : sfpg::unix_ms_to_timestamptz(mark + l.epoch_ms);
    nulls[kDurableMark] = mark < 0;
    v[kDurableWrites] = Int64GetDatum(static_cast<int64>(durable_writes));
    // infinity for a layout whose lifetime runs past timestamptz's range.
    v[kLifetimeEnd] = sfpg::unix_ms_to_timestamptz_or_infinity(l.lifetime_end_unix_ms());
    v[kIdentitySource] = CStringGetTextDatum(sfpg::identity_source_name(id));
    // What the node knows of the identities it issued ids under
    // (core/identity_history.hpp): null where it cannot know.
    const snowflake::IdentityHistory &h = id.history;
    nulls[kIdentitySince] = !has_identity || h.since_unix_ms < 0;
    v[kIdentitySince] = nulls[kIdentitySince] ? Datum(0)
                                              : sfpg::unix_ms_to_timestamptz(h.since_unix_ms);
    nulls[kRetiredIdentity] = h.retired.none();
    nulls[kRetiredUntil] = h.retired.none();
    if (!h.retired.none()) {
        char text[32];
        snprintf(text, sizeof text, "%lld/%lld", static_cast<long long>(h.retired.datacenter_id),
                 static_cast<long long>(h.retired.worker_id));
        v[kRetiredIdentity] = CStringGetTextDatum(text);
        v[kRetiredUntil] = sfpg::unix_ms_to_timestamptz(h.retired_until_unix_ms);
    }
    // Another node issued ids under the current identity up to this time
    // (the registry said it retired the pair then; snowflake.state keeps it).
    nulls[kIdentityNotBefore] = !has_identity || h.not_before_unix_ms < 0;
    v[kIdentityNotBefore] = nulls[kIdentityNotBefore]
                                ? Datum(0)
                                : sfpg::unix_ms_to_timestamptz(h.not_before_unix_ms);
    // The registry's clock beside this node's at its last answer
    // (registry_confirmation.hpp): null where there was none.
    nulls[kRegistrySkewMs] = nulls[kRegistrySkewErrorMs] = !id.skew_measured;
    v[kRegistrySkewMs] = Int64GetDatum(id.skew.offset_ms);
    v[kRegistrySkewErrorMs] = Int64GetDatum(id.skew.error_ms);
    // An installation still at an older extension version declares fewer
    // columns (1.3: up to lifetime_end, 1.4: up to identity_source, 1.5: up
    // to retired_until): fill
    // those it has.
    if (tupdesc->natts > kNumColumns || tupdesc->natts < kIdentitySource)
        elog(ERROR, "snowflake_status() declares %d columns, expected %d to %d", tupdesc->natts,
             static_cast<int>(kIdentitySource), static_cast<int>(kNumColumns));
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, v, nulls)));
}
