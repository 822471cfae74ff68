// What the registry says of a configured identity, and when ids under it
// are blocked: hold-backs, refusals, the lease (node_identity.hpp).
#include "../core/id_path.hpp"
#include "identity_switch.hpp"
#include "node_identity.hpp"
#include "registry_confirmation.hpp"
#include "settings.hpp"
#include "shared_state.hpp"
#include "wall_clock.hpp"

#include "pg_includes.hpp"

namespace sfpg {

void identity_registry_verdict(SharedState *s, int datacenter_id, int worker_id,
                               uint32_t generation, const snowflake::RegistryReading &reading,
                               int64_t retired_until_unix_ms, bool cleared,
                               const char *retired_by, const char *refused) {
    IdentityShared &id = s->identity;
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    if (id.worker_id != worker_id || id.datacenter_id != datacenter_id ||
        id.source != IdentitySource::Configured || id.generation != generation) {
        LWLockRelease(&s->lock);
        return;  // the identity moved on meanwhile: asked again for the new one
    }
    bool record = false;
    // The registry holds a pair back at most kRegistryGiveWayS from its
    // now() (hold_back.sql); so does the node, whatever a registry says.
    const int64 bound = snowflake::grant_floor(reading) + int64{kRegistryGiveWayS} * 1000;
    if (retired_until_unix_ms > bound)
        retired_until_unix_ms = bound;
    if (retired_until_unix_ms >= 0 && retired_until_unix_ms > id.history.not_before_unix_ms) {
        id.history.not_before_unix_ms = retired_until_unix_ms;
        record = true;
    } else if (cleared && id.history.not_before_unix_ms >= 0) {
        // The registry's owner cleared the hold-back
        // (snowflake_registry_clear_hold_back).
        id.history.not_before_unix_ms = -1;
        id.blocked_reason[0] = '\0';
        record = true;
    }
    id.blocked_refused = refused != nullptr;
    if (!refused)
        (void)confirm_lease(id, reading);
    if (refused)
        strlcpy(id.blocked_reason, refused, sizeof id.blocked_reason);
    else if (record && !cleared)
        snprintf(id.blocked_reason, sizeof id.blocked_reason, "node %s retired it",
                 retired_by ? retired_by : "(unknown)");
    publish_usable(s);
    if (record)
        id.claims_adopted++;  // the reserver records the not-before time
    Latch *reserver = s->reserver_latch;
    LWLockRelease(&s->lock);
    if (record && reserver)
        SetLatch(reserver);
}

bool identity_unblock_if_due_locked(SharedState *s, IdentityBlock *why) {
    const IdentityShared &id = s->identity;
    // Also stops a node whose confirmation ran out (the fast path read its
    // node bits until now, bounded by the mark).
    publish_usable(s);
    if (usable_now(id))
        return true;
    const int64 now = wall_clock_unix_ms();
    const int64 not_before = id.history.not_before_unix_ms;
    why->datacenter_id = id.datacenter_id;
    why->worker_id = id.worker_id;
    why->refused = id.blocked_refused;
    why->not_before_unix_ms = not_before;
    const bool held_back = !why->refused && not_before >= 0 && now <= not_before;
    why->skew_blocked = !why->refused && !held_back && lease_required(id) && id.skew_blocked;
    why->skew_offset_ms = id.skew_offset_ms;
    why->skew_error_ms = id.skew_error_ms;
    why->max_skew_ms = id.max_skew_ms;
    why->awaiting_registry = !why->refused && !held_back && !why->skew_blocked;
    why->grant_floor_unix_ms =
        lease_required(id) && now <= id.grant_floor_unix_ms ? id.grant_floor_unix_ms : -1;
    why->lease_until_unix_ms = id.lease_until_unix_ms;
    strlcpy(why->reason, id.blocked_reason, sizeof why->reason);
    strlcpy(why->registry_error, id.registry_error, sizeof why->registry_error);
    return false;
}

bool identity_lease_ran_out_locked(const SharedState *s) {
    return !lease_holds(s->identity, wall_clock_unix_ms());
}

bool identity_awaits_confirmation(SharedState *s) {
    const IdentityShared &id = s->identity;
    LWLockAcquire(&s->lock, LW_SHARED);
    const bool awaits = id.worker_id >= 0 && lease_required(id) && id.lease_until_unix_ms < 0 &&
                        !id.blocked_refused;
    LWLockRelease(&s->lock);
    return awaits;
}

int64_t identity_mark_cap_locked(const SharedState *s) {
    const IdentityShared &id = s->identity;
    if (!lease_required(id))
        return INT64_MAX;
    return id.lease_until_unix_ms < 0 ? -1 : id.lease_until_unix_ms - g_layout.epoch_ms;
}

void identity_wake_registrar(SharedState *s) {
    Latch *latch = s->registrar_latch;
    if (latch)
        SetLatch(latch);
}

}  // namespace sfpg
