// The node identity: the (datacenter_id, worker_id) every id of this node
// carries.  This module is its one home: where it comes from, when it may
// change, and what a reload does.  Nothing else writes it.
//
// Where it comes from, first match wins:
//   1. the configuration: snowflake.worker_id (>= 0) with
//      snowflake.datacenter_id;
//   2. a registry claim: snowflake.registry set and no worker_id; the
//      "snowflake registrar" worker claims a pair, which is recorded in
//      snowflake.state with this node's key and resumed at every start;
//   3. the Citus group id: snowflake.citus_database set and no worker_id;
//      the "snowflake citus identity" worker reads the node's group from
//      Citus's catalog (citus_identity.hpp) and adopts the identity it maps
//      to (core/group_identity.hpp), recorded in snowflake.state under the
//      key "citus:" + this node's key and resumed at every start like a
//      registry claim;
//   otherwise there is none, and ids are refused with a hint.  (The registry
//   and the Citus group are never both set: start-up refuses it.)
//
// When it changes:
//   - The postmaster publishes it at start (and after a crash restart) from
//     the configuration and the state file.  After that only the "snowflake
//     reserver" publishes the configured identity (after every reload, and
//     when it starts), and only the registrar (or the Citus reader) adopts a
//     claim -- always under the generator lock.  Backends never issue ids under their own copy of
//     the settings, which a running statement keeps after a reload.
//   - It never changes by omission.  A reload after snowflake.worker_id or
//     snowflake.datacenter_id stopped being set anywhere (removed from the
//     file, ALTER SYSTEM RESET) keeps the value in use, with a WARNING at
//     every reload while that lasts; SHOW and snowflake_status show the kept
//     value.  Only an explicit value changes it (-1 unsets worker_id).  A
//     crash restart keeps it too (from snowflake.state); a restart takes the
//     configuration as it is.
//   - Every change fences and retires the id word (snowflake::switch_identity):
//     an id another backend was about to take under the old identity is not
//     issued, and every id of the new one is in a millisecond after the
//     change.  It also takes the usable mark back to the word, so that the
//     first id of the new identity waits for a reservation, which records
//     the identity in snowflake.state and the WAL first.
//   - Every change is recorded in the identity history
//     (core/identity_history.hpp): since when the node may have issued ids
//     under its identity, and until when under the one it left.
//
// The settings' check hooks only validate ranges: a process that initialises
// or restores its settings (a new backend, a parallel worker) never fails on
// the identity.
#pragma once

#include <cstdint>

#include "../core/identity_history.hpp"
#include "../core/registry_clock.hpp"
#include "../core/state_record.hpp"

namespace sfpg {

struct SharedState;

enum class IdentitySource : int {
    None = 0,    // no identity: ids are refused
    Configured,  // snowflake.worker_id / snowflake.datacenter_id
    Claimed,     // a registry claim
    Citus,       // the Citus group id (a claim too: recorded, resumed, second to Configured)
};

enum class RegistryState : int { None = 0, Waiting, Claimed, Exhausted };

// The identity's part of the shared state; every field is guarded by the
// generator lock.
struct IdentityShared {
    int32_t datacenter_id;
    int32_t worker_id;  // -1: no identity (yet)
    IdentitySource source;
    // Configured values kept after the setting stopped being set.
    bool kept_datacenter_id;
    bool kept_worker_id;

    // snowflake.registry's progress, or the Citus group id's: why there is
    // no identity (yet).
    RegistryState registry_state;
    char registry_error[256];
    // The key the claim in use belongs to (set with source Claimed or
    // Citus).
    char registry_node_key[snowflake::kNodeKeyMaxLen + 1];
    // Changes the reserver is to write to the state file (claims adopted, a
    // not-before time the registry gave), and those it has written.
    uint32_t claims_adopted;
    uint32_t claims_recorded;

    // Since when ids carry this identity, and the one left last.
    snowflake::IdentityHistory history;
    // Bumped by every change of the identity: a reservation written under
    // another generation is not published (reserve_ahead).
    uint32_t generation;

    // The registry refuses the identity to this node (another node holds
    // the pair): no id is issued under it until it says otherwise.  Ids are
    // also held back while the clock is not past history.not_before_unix_ms
    // (another node retired the pair until then).  Either way the fast path
    // reads node -1 meanwhile, and the slow path says why (blocked_reason).
    bool blocked_refused;
    char blocked_reason[256];

    // The registry's confirmation, with snowflake.registry set and a pair
    // from the registry (a claim) or the configuration: ids under the pair
    // carry times up to lease_until_unix_ms at most, on the node's clock
    // (-1: not confirmed since the start or the last change of identity).
    // The registrar sets it to the time it sent the request the registry
    // confirmed, plus lease_ms, and no later than the registry's now() in
    // that answer plus lease_ms (registry_confirmation.hpp); the reserver
    // never extends the durable mark past it, so that no id, borrowed ahead
    // of the clock or not, carries a later time (the fast path reads
    // nothing more), and the slow path holds ids back once the clock is
    // past it.  The registry gives a silent holder's pair away only
    // kRegistryGiveWayS after the holder's last request (settings.hpp), or
    // once its own clock is past the holder's confirmed_until, both after
    // the lease on the registry's clock.
    int64_t lease_until_unix_ms;
    // snowflake.registry_lease (ms) and snowflake.issue_without_registry
    // as the reserver read them at start and at the last reload.
    int32_t lease_ms;
    bool without_registry;

    // The registry's clock beside this node's (core/registry_clock.hpp),
    // from its last answer that gave or confirmed the pair:
    //   - skew_offset_ms, skew_error_ms: the node's clock minus the
    //     registry's, within the error (skew_measured: there was one);
    //   - skew_blocked: the skew was proven past max_skew_ms
    //     (snowflake.registry_max_skew as the reserver read it), so no id is
    //     issued under a pair that needs the registry's confirmation until
    //     an answer within it;
    //   - grant_floor_unix_ms: the registry's now() when it gave the pair
    //     (an answer while no confirmation was in force): ids under it carry
    //     later times (-1: none since the last change of identity).
    bool skew_measured;
    bool skew_blocked;
    int32_t max_skew_ms;
    int64_t skew_offset_ms;
    int64_t skew_error_ms;
    int64_t grant_floor_unix_ms;

    // On a standby (or a restore), from the last mark replayed: the identity
    // and history of the node that wrote the WAL.
    bool lineage_valid;
    snowflake::NodePair lineage_pair;
    snowflake::IdentityHistory lineage_history;
};

// What snowflake_status and error messages show.
struct IdentityView {
    int datacenter_id;
    int worker_id;  // -1: none
    IdentitySource source;
    bool kept;  // a configured value is kept after its setting was removed
    // With no identity in registry or Citus mode: why there is none yet.
    const char *waiting_for_registry;
    snowflake::IdentityHistory history;
    uint32_t generation;  // IdentityShared::generation
    // The registry's clock beside this node's at its last answer
    // (IdentityShared::skew_*), and whether that skew stops ids.
    bool skew_measured;
    snowflake::ClockSkew skew;
    bool skew_blocked;
    int max_skew_ms;
};

// Whether the node takes its identity from the registry: snowflake.registry
// is set and snowflake.worker_id is not.
bool registry_mode();

// Whether the node takes its identity from its Citus group:
// snowflake.citus_database is set and snowflake.worker_id is not.
bool citus_mode();

// In the postmaster, when shared memory is (re)initialised: the identity
// from the configuration.  No lock needed: no other process exists yet.
void identity_init(SharedState *s);

// In the postmaster, once the state file is read: in registry (or Citus)
// mode, if `stored` holds this node's own claim (identity from Citus) under
// the configured widths, it becomes the identity at once.
void identity_resume_claim(SharedState *s, const snowflake::StateRecord &stored);

// In the postmaster, when it reinitialises shared memory after a crash, once
// the state file is read: a configured identity that the reserver kept after
// its setting was removed (recorded in `stored`) is kept on, as a reload
// would.  (A restart, unlike a crash restart, takes the configuration as it
// is.)
void identity_keep_after_crash(SharedState *s, const snowflake::StateRecord &stored);

// In the postmaster, once the id word is set up from the state file
// (`stored`, null if there is none): the identity history.  An identity
// other than the recorded one (or a first one) starts now: the word is
// fenced at the clock, so that its ids carry later times.
void identity_settle_at_start(SharedState *s, const snowflake::StateRecord *stored);

// In redo of a version-3 mark during archive recovery (a standby, a
// restore), with the lock held: the identity and history it was reserved
// under become the lineage's.
void identity_note_lineage(SharedState *s, const snowflake::StateRecord &mark);

// At the end of recovery, before the node issues ids: if marks told the
// lineage's identity history, it becomes the node's, moved to the node's
// own identity if that differs (the word fenced at the clock).  Returns
// whether the history was set (the state file must record it).
bool identity_settle_after_recovery(SharedState *s);

// In the reserver, when it starts and after every reload: publishes the
// configured identity, keeping values whose setting was removed (WARNING).
void identity_after_reload(SharedState *s);

// The identity in use.  Returns false (and fills *v all the same) when there
// is none.  Takes the lock.
bool identity_in_use(IdentityView *v);

// "configured", "kept", "registry", "citus" or "none".
const char *identity_source_name(const IdentityView &v);

// The identity in use, the claim's key if it is a claim, and the identity
// history, into a record about to be written to the state file; returns the
// identity's generation (IdentityShared::generation).
uint32_t identity_into_record(snowflake::StateRecord *r);

// This node's key in the registry: system identifier, host name and port.
void identity_node_key(char *buf, size_t len);

// The key an identity from Citus is recorded under: "citus:" + the node key.
void identity_citus_key(char *buf, size_t len);

// ---- for the registrar and the Citus reader ---------------------------------------

// Whether a configured identity is in use (then no claim is ever adopted).
bool identity_is_configured(SharedState *s);

// The claim the node holds, if any.
bool identity_held_claim(SharedState *s, int *datacenter_id, int *worker_id);

// Records why there is no claim, where backends can see it.  A node that
// holds a claim keeps it when a renewal fails.
void identity_note_registry_failure(SharedState *s, RegistryState state, const char *error);

enum class Adopted { New, Same, Moved, ConfiguredWins };

// Makes the registry's answer (source Claimed) or the Citus group's
// (source Citus) the identity, unless a configured identity is in use:
// decided under the lock, so a worker_id set and reloaded while the claim
// was on its way wins.  *old_* receive the identity it replaced.
// reading: for a registry claim, the registry's answer, which confirms the
// pair (registry_confirmation.hpp).
Adopted identity_adopt_claim(SharedState *s, int datacenter_id, int worker_id, const char *key,
                             int *old_datacenter_id, int *old_worker_id,
                             IdentitySource source = IdentitySource::Claimed,
                             const snowflake::RegistryReading *reading = nullptr);

// The registrar's latch, set at every identity change so that it reports
// the retired identity and reserves the new one at once.
void identity_wake_registrar(SharedState *s);

// Gives up the claim the node holds, if any (the node has no identity
// then), and records why there is none (as identity_note_registry_failure).
// The reserver records it in the state file, so that no restart resumes
// it.  For the Citus reader: a node whose Citus metadata was cleared.
void identity_drop_claim(SharedState *s, RegistryState state, const char *why);

// In the reserver: writes the state file again (same mark) when a claim was
// adopted that it does not record yet, so the claim survives a crash before
// the node's first id.
void identity_record_new_claim(SharedState *s);

// What the registry says about the configured pair (dc, worker) of this
// node, asked under identity generation `generation` (reading: the
// exchange, registry_confirmation.hpp): another node retired it until
// retired_until_unix_ms (-1: no such time; retired_by names it), or refuses
// it (refused: why; null: not refused, which confirms the pair); cleared:
// the registry's owner cleared the pair's hold-back, which the node drops.
// A retired_until is taken no further than the registry's give-way
// (kRegistryGiveWayS) from the registry's clock.  Ignored if the node's
// identity changed since.  Ids are held back until the clock is past
// retired_until (recorded in snowflake.state as the identity's not-before
// time), or while refused.
void identity_registry_verdict(SharedState *s, int datacenter_id, int worker_id,
                               uint32_t generation, const snowflake::RegistryReading &reading,
                               int64_t retired_until_unix_ms, bool cleared,
                               const char *retired_by, const char *refused);

// For the registrar: whether the identity in use needs the registry's
// confirmation and has none since its start or last change (and is not
// refused).  Takes the lock.
bool identity_awaits_confirmation(SharedState *s);

// For the reserver, with the lock held: the latest millisecond (after the
// epoch) an id may carry under the registry's confirmation, or INT64_MAX
// when no confirmation is needed (see IdentityShared::lease_until_unix_ms).
int64_t identity_mark_cap_locked(const SharedState *s);

// Why the identity issues no id now, for the slow path's error.
struct IdentityBlock {
    int datacenter_id;
    int worker_id;
    bool refused;                // the registry refuses the pair
    int64_t not_before_unix_ms;  // else: ids must carry later times, or
    // else: the registry has not confirmed the pair since the start or
    // the last change (lease_until_unix_ms -1), or its confirmation ran
    // out then; registry_error: its last failure, if any.
    bool awaiting_registry;
    int64_t lease_until_unix_ms;
    // else, before awaiting_registry: the registry's last answer proved the
    // node's clock too far from the registry's (IdentityShared::skew_*).
    bool skew_blocked;
    int64_t skew_offset_ms;
    int64_t skew_error_ms;
    int32_t max_skew_ms;
    // The registry's now() when it gave the pair, if ids wait for it (-1).
    int64_t grant_floor_unix_ms;
    char reason[256];
    char registry_error[256];
};

// In the slow path, with the lock held, when the fast path found no node
// but the node has an identity: lifts a block that is over (the word fenced
// past its not-before time) and returns true, or fills *why and returns
// false.
bool identity_unblock_if_due_locked(SharedState *s, IdentityBlock *why);

// In the slow path, with the lock held: whether the registry's
// confirmation, which this identity needs, is missing or over (then
// identity_unblock_if_due_locked stops the identity and says why).
bool identity_lease_ran_out_locked(const SharedState *s);

// ---- for the settings ----------------------------------------------------------

// SHOW hooks of snowflake.worker_id and snowflake.datacenter_id: the value in
// use while a removed setting's value is kept, else the setting's own.
const char *show_worker_id();
const char *show_datacenter_id();

}  // namespace sfpg
