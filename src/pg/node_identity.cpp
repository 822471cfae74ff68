// The node identity's rules (node_identity.hpp): at start, after a crash
// and recovery, at a reload; what the status shows and the state file records.
// The registry's and Citus's claims are in identity_claim.cpp, blocks and
// the registry's verdicts in identity_block.cpp, the change itself in
// identity_switch.cpp.
#include "../core/id_path.hpp"
#include "../core/id_word.hpp"
#include "identity_switch.hpp"
#include "node_identity.hpp"
#include "registry_confirmation.hpp"
#include "settings.hpp"
#include "shared_state.hpp"
#include "wall_clock.hpp"

#include "pg_includes.hpp"

namespace sfpg {

namespace {

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
