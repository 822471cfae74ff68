// The node identity's rules (node_identity.hpp).
#include <cstring>
#include <unistd.h>

#include "../core/id_path.hpp"
#include "../core/id_word.hpp"
#include "node_identity.hpp"
#include "registry_confirmation.hpp"
#include "settings.hpp"
#include "shared_state.hpp"
#include "state_file.hpp"
#include "wall_clock.hpp"

#include "pg_includes.hpp"
extern "C" {
#include "postmaster/postmaster.h"
}

namespace sfpg {

namespace {

// Sets the identity in the postmaster, while it sets up shared memory: no
// other process exists and the id word is set up afterwards
// (identity_settle_at_start).
void set_identity_at_start(SharedState *s, int datacenter_id, int worker_id,
                           IdentitySource source) {
    IdentityShared &id = s->identity;
    id.datacenter_id = datacenter_id;
    id.worker_id = worker_id;
    id.source = worker_id < 0 ? IdentitySource::None : source;
    const int64 node = worker_id < 0 ? -1 : g_layout.node_bits(datacenter_id, worker_id);
    pg_atomic_write_u64(&s->node, static_cast<uint64>(node));
}

// The id word's atomic operations, for snowflake::switch_identity.
struct SharedWord {
    pg_atomic_uint64 *word;
    uint64_t load() { return pg_atomic_read_u64(word); }
    bool cas(uint64_t *expected, uint64_t desired) {
        uint64 e = *expected;
        const bool ok = pg_atomic_compare_exchange_u64(word, &e, desired);
        *expected = e;
        return ok;
    }
};

// Processes whose fetch-and-add may still land on the word after a change.
int64_t max_adders(const SharedState *s) { return s->use_fetch_add ? s->n_counters : 0; }

// Changes the identity ids are issued under, on a running node; the caller
// holds the lock exclusively.  In this order:
//   - the usable mark comes down to the word's millisecond, so that the
//     first id of the new identity waits for a reservation, which records
//     the new identity and its history in the state file and the WAL before
//     the id exists (reserve_ahead refuses to publish a mark written under
//     an identity that changed meanwhile);
//   - snowflake::switch_identity fences the word at the clock, publishes the
//     node and retires the word: an id another process was about to take
//     under the old identity is not issued, and every id of the new one is
//     in a millisecond after the fence (identity_since);
//   - the history records the old identity as retired, until the latest
//     millisecond any of its ids can carry: the word's after the change, or
//     the usable mark if that is lower.
void change_identity(SharedState *s, int datacenter_id, int worker_id, IdentitySource source) {
    IdentityShared &id = s->identity;
    const snowflake::NodePair from{id.datacenter_id, id.worker_id};
    const snowflake::NodePair to{datacenter_id, worker_id < 0 ? -1 : worker_id};
    id.datacenter_id = datacenter_id;
    id.worker_id = worker_id;
    id.source = worker_id < 0 ? IdentitySource::None : source;
    if (from == to)
        return;
    // What the registry said was about the old pair, and so was its
    // confirmation.
    id.blocked_refused = false;
    id.blocked_reason[0] = '\0';
    forget_confirmation(id);
    // Until the registry confirms the new pair, the fast path reads no node
    // (publish_usable publishes it then).
    const bool unconfirmed = worker_id >= 0 && lease_required(id);
    const int64 node =
        worker_id < 0 || unconfirmed ? -1 : g_layout.node_bits(datacenter_id, worker_id);
    const int64 word_ms = snowflake::word_ms(g_layout, pg_atomic_read_u64(&s->word));
    const int64 reserved = static_cast<int64>(pg_atomic_read_u64(&s->reserved_ms));
    if (reserved > word_ms)
        pg_atomic_write_u64(&s->reserved_ms, static_cast<uint64>(word_ms));
    // Ids of the new identity come after the clock and after the word.
    const int64 now = wall_clock_unix_ms() - g_layout.epoch_ms;
    const int64 floor = now > word_ms + 1 ? now : word_ms + 1;
    SharedWord word{&s->word};
    const uint64 after = snowflake::switch_identity(
        word, [s, node] { pg_atomic_write_u64(&s->node, static_cast<uint64>(node)); }, g_layout,
        floor - 1, max_adders(s));
    const int64 after_ms = snowflake::word_ms(g_layout, after);
    const int64 until = after_ms < reserved ? after_ms : reserved;
    id.history = snowflake::history_after_change(id.history, from, to, floor + g_layout.epoch_ms,
                                                 until + g_layout.epoch_ms);
    id.generation++;
}

// Whether ids may be issued under the identity now (see blocked_refused).
bool usable_now(const IdentityShared &id) {
    if (id.worker_id < 0 || id.blocked_refused)
        return false;
    const int64 now = wall_clock_unix_ms();
    const int64 not_before = identity_not_before(id);
    return (not_before < 0 || now > not_before) && lease_holds(id, now);
}

// Publishes the node bits, or -1 while the identity is blocked; the caller
// holds the lock exclusively.  Stopping retires the word, so that an add or
// swap prepared before fails; resuming fences it at the not-before time, so
// that every id carries a later one.
void publish_usable(SharedState *s) {
    const IdentityShared &id = s->identity;
    const bool usable = usable_now(id);
    const int64 node = usable ? g_layout.node_bits(id.datacenter_id, id.worker_id) : -1;
    const int64 not_before = identity_not_before(id);
    const int64 fence = usable && not_before >= 0 ? not_before - g_layout.epoch_ms : -1;
    SharedWord word{&s->word};
    if (static_cast<int64>(pg_atomic_read_u64(&s->node)) == node) {
        // Usable all along (the clock is past the not-before time already):
        // the word still moves past it, so that no id to come, taken or
        // borrowed, carries an earlier time.
        uint64_t w = word.load();
        while (fence > snowflake::word_ms(g_layout, w) &&
               !word.cas(&w, snowflake::word_after_identity_change(g_layout, w, max_adders(s),
                                                                    fence))) {
        }
        return;
    }
    (void)snowflake::switch_identity(
        word, [s, node] { pg_atomic_write_u64(&s->node, static_cast<uint64>(node)); }, g_layout,
        fence, max_adders(s));
}

// snowflake.registry_lease and snowflake.issue_without_registry, as this
// process (the reserver) reads them, into shared memory; the lock is held
// exclusively.  A shorter lease applies from the next confirmation on;
// turning the opt-in off stops ids at once until the registry confirms.
void set_registry_settings_locked(SharedState *s) {
    IdentityShared &id = s->identity;
    id.lease_ms = guc_registry_lease_s * 1000;
    id.max_skew_ms = guc_registry_max_skew_ms;
    if (id.without_registry != guc_issue_without_registry) {
        id.without_registry = guc_issue_without_registry;
        if (id.worker_id >= 0)
            publish_usable(s);
    }
}

void warn_kept(const char *name, int kept, int default_value) {
    ereport(WARNING,
            (errmsg("%s was removed from the configuration; the node keeps %s = %d", name, name,
                    kept),
             errdetail("Resetting it to its default (%d) would change the node identity ids are "
                       "issued under.",
                       default_value),
             errhint("To change it, set a new value explicitly (-1 unsets snowflake.worker_id). "
                     "At the next server start the configuration applies as it is.")));
}

}  // namespace

bool registry_mode() { return guc_worker_id < 0 && registry_configured(); }

bool citus_mode() { return guc_worker_id < 0 && citus_configured(); }

void identity_init(SharedState *s) {
    IdentityShared &id = s->identity;
    id = IdentityShared{};
    id.worker_id = -1;
    id.lease_until_unix_ms = -1;
    id.grant_floor_unix_ms = -1;
    id.lease_ms = guc_registry_lease_s * 1000;
    id.max_skew_ms = guc_registry_max_skew_ms;
    id.without_registry = guc_issue_without_registry;
    pg_atomic_write_u64(&s->node, static_cast<uint64>(int64{-1}));
    if (!registry_mode() && !citus_mode())
        set_identity_at_start(s, guc_datacenter_id, guc_worker_id, IdentitySource::Configured);
}

void identity_resume_claim(SharedState *s, const snowflake::StateRecord &stored) {
    const bool citus = citus_mode();
    if ((!registry_mode() && !citus) || stored.registry_node_key[0] == '\0')
        return;  // a configured identity, or a record of one: not a claim
    char key[snowflake::kNodeKeyMaxLen + 1];
    if (citus)
        identity_citus_key(key, sizeof key);
    else
        identity_node_key(key, sizeof key);
    if (strcmp(key, stored.registry_node_key) != 0) {
        ereport(LOG, (errmsg(citus ? "snowflake: snowflake.state holds the identity %s, not this "
                                     "node's from Citus (%s); reading the group id anew"
                                   : "snowflake: snowflake.state holds the registry claim of "
                                     "node %s, not of this node (%s); claiming anew",
                             stored.registry_node_key, key)));
        return;
    }
    const snowflake::Layout &l = stored.layout;
    if (l.datacenter_bits != g_layout.datacenter_bits || l.worker_bits != g_layout.worker_bits ||
        stored.datacenter_id < 0 || stored.datacenter_id > g_layout.max_datacenter_id() ||
        stored.worker_id < 0 || stored.worker_id > g_layout.max_worker_id())
        return;  // other widths: start-up refuses them anyway
    IdentityShared &id = s->identity;
    set_identity_at_start(s, static_cast<int>(stored.datacenter_id),
                          static_cast<int>(stored.worker_id),
                          citus ? IdentitySource::Citus : IdentitySource::Claimed);
    strlcpy(id.registry_node_key, key, sizeof id.registry_node_key);
    id.registry_state = RegistryState::Claimed;
    if (citus)
        ereport(LOG, (errmsg("snowflake: resuming the identity from Citus recorded in "
                             "snowflake.state: datacenter_id %d worker_id %d",
                             id.datacenter_id, id.worker_id)));
    else
        ereport(LOG, (errmsg("snowflake: resuming the registry claim of node %s recorded in "
                             "snowflake.state: datacenter_id %d worker_id %d",
                             key, id.datacenter_id, id.worker_id)));
}

void identity_keep_after_crash(SharedState *s, const snowflake::StateRecord &stored) {
    if (registry_configured() || citus_configured() || stored.registry_node_key[0] != '\0' ||
        stored.worker_id < 0 ||
        stored.worker_id > g_layout.max_worker_id() || stored.datacenter_id < 0 ||
        stored.datacenter_id > g_layout.max_datacenter_id())
        return;  // not a configured identity this layout can carry
    IdentityShared &id = s->identity;
    const bool keep_worker =
        !setting_is_set("snowflake.worker_id") && guc_worker_id != stored.worker_id;
    const int worker = keep_worker ? static_cast<int>(stored.worker_id) : guc_worker_id;
    const bool keep_datacenter = worker >= 0 && !setting_is_set("snowflake.datacenter_id") &&
                                 guc_datacenter_id != stored.datacenter_id;
    if (!keep_worker && !keep_datacenter)
        return;
    set_identity_at_start(s,
                          keep_datacenter ? static_cast<int>(stored.datacenter_id)
                                          : guc_datacenter_id,
                          worker, IdentitySource::Configured);
    id.kept_worker_id = keep_worker;
    id.kept_datacenter_id = keep_datacenter;
    ereport(LOG, (errmsg("snowflake: after the crash restart the node keeps datacenter_id %d "
                         "worker_id %d, recorded in snowflake.state",
                         id.datacenter_id, id.worker_id),
                  errdetail("The configuration no longer sets %s.",
                            keep_worker && keep_datacenter
                                ? "snowflake.worker_id and snowflake.datacenter_id"
                                : keep_worker ? "snowflake.worker_id" : "snowflake.datacenter_id")));
}

void identity_settle_at_start(SharedState *s, const snowflake::StateRecord *stored) {
    IdentityShared &id = s->identity;
    const snowflake::NodePair now_pair{id.datacenter_id, id.worker_id};
    const snowflake::NodePair was =
        stored ? snowflake::NodePair{stored->datacenter_id, stored->worker_id}
               : snowflake::NodePair{0, -1};
    id.history = stored ? stored->history : snowflake::IdentityHistory{};
    id.generation = 0;
    // No id before the registry confirms the pair (a claim resumed from
    // snowflake.state included): the slow path waits for it.
    if (!now_pair.none() && lease_required(id))
        pg_atomic_write_u64(&s->node, static_cast<uint64>(int64{-1}));
    if (was == now_pair) {
        // Another node retired this pair until a time still to come.
        const int64 not_before = id.history.not_before_unix_ms;
        if (!now_pair.none() && not_before >= 0 && wall_clock_unix_ms() <= not_before) {
            snprintf(id.blocked_reason, sizeof id.blocked_reason,
                     "another node retired it (recorded in snowflake.state)");
            pg_atomic_write_u64(&s->node, static_cast<uint64>(int64{-1}));
        }
        return;
    }
    // Every id of the recorded identity is at or below the file's mark (the
    // word holds it now, used up).
    const uint64 w = pg_atomic_read_u64(&s->word);
    const int64 word_ms = snowflake::word_ms(g_layout, w);
    const int64 now = wall_clock_unix_ms() - g_layout.epoch_ms;
    const int64 floor = now > word_ms + 1 ? now : word_ms + 1;
    const int64 until_unix = stored && stored->mark_unix_ms >= 0 ? stored->mark_unix_ms
                                                                 : g_layout.epoch_ms - 1;
    id.history = snowflake::history_after_change(id.history, was, now_pair,
                                                 floor + g_layout.epoch_ms, until_unix);
    if (!now_pair.none())
        pg_atomic_write_u64(&s->word,
                            snowflake::word_after_identity_change(g_layout, w, 0, floor - 1));
}

void identity_note_lineage(SharedState *s, const snowflake::StateRecord &mark) {
    IdentityShared &id = s->identity;
    id.lineage_valid = true;
    id.lineage_pair = snowflake::NodePair{mark.datacenter_id, mark.worker_id};
    id.lineage_history = mark.history;
}

bool identity_settle_after_recovery(SharedState *s) {
    IdentityShared &id = s->identity;
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    const bool settle = id.lineage_valid;
    if (settle) {
        const snowflake::NodePair now_pair{id.datacenter_id, id.worker_id};
        const uint64 w = pg_atomic_read_u64(&s->word);
        const int64 word_ms = snowflake::word_ms(g_layout, w);
        const int64 now = wall_clock_unix_ms() - g_layout.epoch_ms;
        const int64 floor = now > word_ms + 1 ? now : word_ms + 1;
        // Every id of the lineage is at or below the highest mark replayed,
        // which the word holds (used up).
        id.history = snowflake::history_after_change(id.lineage_history, id.lineage_pair,
                                                     now_pair, floor + g_layout.epoch_ms,
                                                     word_ms + g_layout.epoch_ms);
        if (!(id.lineage_pair == now_pair) && !now_pair.none())
            pg_atomic_write_u64(&s->word, snowflake::word_after_identity_change(
                                              g_layout, w, max_adders(s), floor - 1));
        id.lineage_valid = false;
        id.generation++;
    }
    LWLockRelease(&s->lock);
    return settle;
}

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

void identity_after_reload(SharedState *s) {
    // Whether each setting is still set anywhere (file, ALTER SYSTEM,
    // command line): one that is not has its default now.
    const bool worker_set = setting_is_set("snowflake.worker_id");
    const bool datacenter_set = setting_is_set("snowflake.datacenter_id");
    IdentityShared &id = s->identity;
    LWLockAcquire(&s->lock, LW_SHARED);
    const int current_datacenter = id.datacenter_id, current_worker = id.worker_id;
    const IdentitySource current_source = id.source;
    LWLockRelease(&s->lock);
    if ((current_source == IdentitySource::Claimed || current_source == IdentitySource::Citus) &&
        guc_worker_id < 0) {
        LWLockAcquire(&s->lock, LW_EXCLUSIVE);
        set_registry_settings_locked(s);
        LWLockRelease(&s->lock);
        return;  // the registry's (Citus's) claim stays while no worker_id is configured
    }

    // A configured identity in use: a value whose setting is gone stays.
    const bool configured = current_source == IdentitySource::Configured;
    const bool keep_worker = configured && !worker_set && guc_worker_id != current_worker;
    const int worker = keep_worker ? current_worker : guc_worker_id;
    const bool keep_datacenter =
        configured && worker >= 0 && !datacenter_set && guc_datacenter_id != current_datacenter;
    const int datacenter = keep_datacenter ? current_datacenter : guc_datacenter_id;
    // No id carries the new identity before snowflake.state records it: a
    // change takes the usable mark back to the word (change_identity), and
    // the next reservation writes the file.  A crash restart keeps an
    // identity from there (identity_keep_after_crash), which therefore is
    // never one the node had left.
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    set_registry_settings_locked(s);
    const uint32_t generation_before = id.generation;
    change_identity(s, datacenter, worker, IdentitySource::Configured);
    id.kept_worker_id = keep_worker;
    id.kept_datacenter_id = keep_datacenter;
    id.registry_node_key[0] = '\0';  // a configured identity wins over a claim
    const bool changed = id.generation != generation_before;
    LWLockRelease(&s->lock);
    if (changed)
        identity_wake_registrar(s);
    // Said at every reload while it lasts, so that it cannot go unnoticed.
    if (keep_worker)
        warn_kept("snowflake.worker_id", current_worker, -1);
    if (keep_datacenter)
        warn_kept("snowflake.datacenter_id", current_datacenter, 0);
}

bool identity_in_use(IdentityView *v) {
    // Plain data copied under the lock; the registry's error into a static
    // buffer.
    static char reason[sizeof(IdentityShared::registry_error)];
    SharedState *s = g_shared;
    *v = IdentityView{};
    v->datacenter_id = guc_datacenter_id;
    v->worker_id = -1;
    if (s == nullptr)
        return false;
    const IdentityShared &id = s->identity;
    LWLockAcquire(&s->lock, LW_SHARED);
    v->datacenter_id = id.datacenter_id;
    v->worker_id = id.worker_id;
    v->source = id.source;
    v->kept = id.kept_worker_id || id.kept_datacenter_id;
    v->history = id.history;
    v->generation = id.generation;
    v->skew_measured = id.skew_measured;
    v->skew = snowflake::ClockSkew{id.skew_offset_ms, id.skew_error_ms};
    v->skew_blocked = id.skew_blocked && lease_required(id);
    v->max_skew_ms = id.max_skew_ms;
    const bool waiting = id.worker_id < 0 && id.registry_state != RegistryState::None;
    if (waiting)
        strlcpy(reason, id.registry_error[0] ? id.registry_error : "no answer from the registry yet",
                sizeof reason);
    LWLockRelease(&s->lock);
    if (waiting)
        v->waiting_for_registry = reason;
    return v->worker_id >= 0;
}

const char *identity_source_name(const IdentityView &v) {
    switch (v.source) {
    case IdentitySource::Configured:
        return v.kept ? "kept" : "configured";
    case IdentitySource::Claimed:
        return "registry";
    case IdentitySource::Citus:
        return "citus";
    case IdentitySource::None:
        break;
    }
    return "none";
}

uint32_t identity_into_record(snowflake::StateRecord *r) {
    SharedState *s = g_shared;
    // The postmaster writes the last record after every other process has
    // exited (record_final_mark): nothing to lock against, and no PGPROC.
    const bool lock = IsUnderPostmaster;
    const IdentityShared &id = s->identity;
    if (lock)
        LWLockAcquire(&s->lock, LW_SHARED);
    r->datacenter_id = id.datacenter_id;
    r->worker_id = id.worker_id;
    if (id.source == IdentitySource::Claimed || id.source == IdentitySource::Citus)
        strlcpy(r->registry_node_key, id.registry_node_key, sizeof r->registry_node_key);
    else
        r->registry_node_key[0] = '\0';
    r->history = id.history;
    if (id.lineage_valid) {
        // In recovery, the file describes the ids of the data directory's
        // lineage: the identity and history of the node that wrote the WAL.
        r->datacenter_id = id.lineage_pair.datacenter_id;
        r->worker_id = id.lineage_pair.worker_id;
        r->registry_node_key[0] = '\0';
        r->history = id.lineage_history;
    }
    const uint32_t generation = id.generation;
    if (lock)
        LWLockRelease(&s->lock);
    return generation;
}

void identity_node_key(char *buf, size_t len) {
    // Bytes that cannot be recorded in the state file (none in a real host
    // name) become '_'.
    char host[256] = "unknown";
    if (gethostname(host, sizeof host - 1) != 0)
        strlcpy(host, "unknown", sizeof host);
    host[sizeof host - 1] = '\0';
    for (char *p = host; *p; p++) {
        const unsigned char c = static_cast<unsigned char>(*p);
        if (c <= ' ' || c > '~')
            *p = '_';
    }
    snprintf(buf, len, "%llu:%s:%d", static_cast<unsigned long long>(GetSystemIdentifier()), host,
             PostPortNumber);
}

void identity_citus_key(char *buf, size_t len) {
    char node[snowflake::kNodeKeyMaxLen + 1];
    identity_node_key(node, sizeof node);
    snprintf(buf, len, "citus:%s", node);
}

bool identity_is_configured(SharedState *s) {
    LWLockAcquire(&s->lock, LW_SHARED);
    const bool configured = s->identity.source == IdentitySource::Configured;
    LWLockRelease(&s->lock);
    return configured;
}

bool identity_held_claim(SharedState *s, int *datacenter_id, int *worker_id) {
    const IdentityShared &id = s->identity;
    LWLockAcquire(&s->lock, LW_SHARED);
    const bool held = id.source == IdentitySource::Claimed || id.source == IdentitySource::Citus;
    *datacenter_id = id.datacenter_id;
    *worker_id = id.worker_id;
    LWLockRelease(&s->lock);
    return held;
}

void identity_note_registry_failure(SharedState *s, RegistryState state, const char *error) {
    IdentityShared &id = s->identity;
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    // Kept for the error of an id that waits for the registry's
    // confirmation, too.
    strlcpy(id.registry_error, error, sizeof id.registry_error);
    if (id.source != IdentitySource::Claimed && id.source != IdentitySource::Citus)
        id.registry_state = state;
    LWLockRelease(&s->lock);
}

void identity_drop_claim(SharedState *s, RegistryState state, const char *why) {
    IdentityShared &id = s->identity;
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    const bool held = id.source == IdentitySource::Claimed || id.source == IdentitySource::Citus;
    if (held) {
        change_identity(s, id.datacenter_id, -1, IdentitySource::None);
        id.registry_node_key[0] = '\0';
        id.claims_adopted++;  // the reserver records that there is none
    }
    if (id.source == IdentitySource::None) {
        strlcpy(id.registry_error, why, sizeof id.registry_error);
        id.registry_state = state;
    }
    Latch *reserver = s->reserver_latch;
    LWLockRelease(&s->lock);
    if (held && reserver)
        SetLatch(reserver);
}

Adopted identity_adopt_claim(SharedState *s, int datacenter_id, int worker_id, const char *key,
                             int *old_datacenter_id, int *old_worker_id, IdentitySource source,
                             const snowflake::RegistryReading *reading) {
    IdentityShared &id = s->identity;
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    if (id.source == IdentitySource::Configured) {
        LWLockRelease(&s->lock);
        return Adopted::ConfiguredWins;
    }
    Adopted result = Adopted::New;
    if (id.source == source)
        result = id.datacenter_id == datacenter_id && id.worker_id == worker_id ? Adopted::Same
                                                                                : Adopted::Moved;
    *old_datacenter_id = id.datacenter_id;
    *old_worker_id = id.worker_id;
    change_identity(s, datacenter_id, worker_id, source);
    strlcpy(id.registry_node_key, key, sizeof id.registry_node_key);
    id.registry_error[0] = '\0';
    id.registry_state = RegistryState::Claimed;
    // The registry gave or confirmed this pair: ids under it may start
    // (within the skew limit).
    if (reading)
        (void)confirm_lease(id, *reading);
    publish_usable(s);
    if (result != Adopted::Same)
        id.claims_adopted++;  // the reserver records it in the state file
    Latch *reserver = s->reserver_latch;
    LWLockRelease(&s->lock);
    if (result != Adopted::Same && reserver)
        SetLatch(reserver);
    return result;
}

void identity_record_new_claim(SharedState *s) {
    IdentityShared &id = s->identity;
    LWLockAcquire(&s->lock, LW_SHARED);
    const uint32_t adopted = id.claims_adopted;
    const bool wanted = adopted != id.claims_recorded;
    const int64_t mark = s->file_mark_unix_ms;
    LWLockRelease(&s->lock);
    if (!wanted)
        return;
    // The mark the state file holds already, now with the claim.
    write_state_file(current_record(mark));
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    id.claims_recorded = adopted;
    s->durable_writes++;
    LWLockRelease(&s->lock);
}

namespace {

// The value a SHOW hook displays: the kept one while a removed setting's
// value is kept (read under the lock, in a process that can take it).
const char *show_identity(bool worker) {
    static char buf[16];
    SharedState *s = g_shared;
    int value = worker ? guc_worker_id : guc_datacenter_id;
    if (s != nullptr && IsUnderPostmaster && MyProc != nullptr) {
        const IdentityShared &id = s->identity;
        LWLockAcquire(&s->lock, LW_SHARED);
        if (worker && id.kept_worker_id)
            value = id.worker_id;
        else if (!worker && id.kept_datacenter_id)
            value = id.datacenter_id;
        LWLockRelease(&s->lock);
    }
    snprintf(buf, sizeof buf, "%d", value);
    return buf;
}

}  // namespace

const char *show_worker_id() { return show_identity(true); }
const char *show_datacenter_id() { return show_identity(false); }

}  // namespace sfpg
