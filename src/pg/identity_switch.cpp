// How the node identity in shared memory changes (identity_switch.hpp).
#include "../core/id_path.hpp"
#include "../core/id_word.hpp"
#include "identity_switch.hpp"
#include "registry_confirmation.hpp"
#include "settings.hpp"
#include "wall_clock.hpp"

#include "pg_includes.hpp"

namespace sfpg {

namespace {

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

}  // namespace

void set_identity_at_start(SharedState *s, int datacenter_id, int worker_id,
                           IdentitySource source) {
    IdentityShared &id = s->identity;
    id.datacenter_id = datacenter_id;
    id.worker_id = worker_id;
    id.source = worker_id < 0 ? IdentitySource::None : source;
    const int64 node = worker_id < 0 ? -1 : g_layout.node_bits(datacenter_id, worker_id);
    pg_atomic_write_u64(&s->node, static_cast<uint64>(node));
}

int64_t max_adders(const SharedState *s) { return s->use_fetch_add ? s->n_counters : 0; }

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

bool usable_now(const IdentityShared &id) {
    if (id.worker_id < 0 || id.blocked_refused)
        return false;
    const int64 now = wall_clock_unix_ms();
    const int64 not_before = identity_not_before(id);
    return (not_before < 0 || now > not_before) && lease_holds(id, now);
}

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

}  // namespace sfpg
