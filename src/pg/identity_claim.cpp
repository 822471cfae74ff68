// The node identity given by the registry or the Citus group: the claim
// resumed at start, adopted, dropped and recorded (node_identity.hpp).
#include <cstring>
#include <unistd.h>

#include "identity_switch.hpp"
#include "node_identity.hpp"
#include "registry_confirmation.hpp"
#include "settings.hpp"
#include "shared_state.hpp"
#include "state_file.hpp"

#include "pg_includes.hpp"
extern "C" {
#include "postmaster/postmaster.h"
}

namespace sfpg {

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

}  // namespace sfpg
