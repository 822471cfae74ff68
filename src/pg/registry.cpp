// The registrar: claims and renews this node's (datacenter_id, worker_id) on
// the registry server, and the glue that makes a claim survive restarts.
// With a configured identity it reserves the configured pair instead, and
// either way it reports the pair the node left (its retired identity).
//
// Rules (README "Assigning node identities"):
//   - an explicit snowflake.worker_id always wins: a claim is adopted only
//     while the node has no configured identity, checked under the lock at
//     the moment of adopting it;
//   - an adopted claim is recorded in snowflake.state with the node's key, so
//     a crash restart, a clean restart or a restarted registrar resume the
//     same pair (ids under it wait for the registry's confirmation, below);
//     only the node whose key it is resumes it (a pg_basebackup clone has
//     another host or port);
//   - the registry is asked again at start and then every minute (or a third
//     of snowflake.registry_lease), with the pair the node holds: it answers with the node's claim (the same pair),
//     and when the claim is missing (restored registry, released by hand) it
//     records the pair again if it is free, else hands out a free one, which
//     the node then moves to;
//   - a node with a configured identity (snowflake.worker_id set) reserves
//     its pair at start, at once after every reload that changes it, and
//     every minute; the registry answers whether another node retired the
//     pair until a time still to come (ids are held back until the clock is
//     past it) or holds it (ids are refused until that changes), and the
//     node obeys (identity_registry_verdict);
//   - whenever the node's retired identity (snowflake_status.retired_identity)
//     is one it has not reported yet, it tells the registry, with
//     retired_until, so that no other node gets the pair before then;
//   - every call in the node's name carries its secret (node_secret.hpp),
//     without which the registry refuses to act on the node's rows;
//   - every answer that gives or confirms the pair in use (a claim, a
//     renewal, a reservation not refused) is the node's confirmation: ids
//     under the pair carry times up to the moment the request was sent plus
//     snowflake.registry_lease (and no later than the registry's clock in
//     the answer plus the lease), and none before the first confirmation
//     after a start or a change of identity, nor dated before the
//     registry's clock when it gave the pair; each answer measures the
//     skew between the two clocks, and one past snowflake.registry_max_skew
//     stops ids until an answer within it (registry_confirmation.hpp).
#include <csignal>
#include <cstring>
#include <unistd.h>

#include "../core/state_record.hpp"
#include "node_identity.hpp"
#include "node_secret.hpp"
#include "registry.hpp"
#include "reservation.hpp"
#include "settings.hpp"
#include "shared_state.hpp"
#include "wall_clock.hpp"

#include "registry_client.hpp"

#include "firewall.hpp"
extern "C" {
#include "access/xlog.h"
#include "catalog/pg_type.h"
}

namespace sfpg {

namespace {

constexpr long kRetryMs = 1000;          // first retry after a failed claim
constexpr long kMaxRetryMs = 10000;      // retries double up to this while no pair is held
constexpr long kRenewMs = 60000;         // renewal interval (and the retry cap) once held

volatile sig_atomic_t got_sigterm = 0;

void handle_sigterm(SIGNAL_ARGS) {
    int save_errno = errno;
    got_sigterm = 1;
    SetLatch(MyLatch);
    errno = save_errno;
}

// Interrupted by SIGTERM: exit code 1, so that if this was not a shutdown
// (pg_terminate_backend) the postmaster starts the registrar again.
[[noreturn]] void stop_on_sigterm() { proc_exit(1); }

// The schema the extension lives in on the registry, quoted; false if the
// extension is not there (msg says so).  The query depends on no search_path.
bool registry_schema(PGconn *conn, char *schema, size_t len, char *msg, size_t msg_len) {
    PGresult *res;
    const ClientResult r = registry_query(
        conn,
        "SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e "
        "JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace "
        "WHERE e.extname OPERATOR(pg_catalog.=) 'snowflake'",
        0, nullptr, nullptr, &got_sigterm, &res, msg, msg_len);
    if (r == ClientResult::Interrupted) {
        PQfinish(conn);
        stop_on_sigterm();
    }
    const bool found = r == ClientResult::Ok && PQntuples(res) == 1;
    if (found)
        strlcpy(schema, PQgetvalue(res, 0, 0), len);
    else if (r == ClientResult::Ok)
        snprintf(msg, msg_len, "the snowflake extension is not installed in database \"%s\" of "
                 "the registry", PQdb(conn));
    PQclear(res);
    return found;
}

// The outcome of one call to the registry.
struct Call {
    bool ok;            // a result with rows came back
    bool refused;       // the registry answered with an error (msg, sqlstate)
    char sqlstate[6];
    char msg[600];
    PGresult *res;      // ok: the result (PQclear it)
    // On this node's clock: when the query left and when its answer came.
    int64_t sent_unix_ms;
    int64_t received_unix_ms;
};

// The registry's now() in microseconds since 1970, as the last column of a
// query's select list (registry_clock.hpp): the transaction's start, the
// same now() the registry's functions judged by.
#define REGISTRY_NOW_US \
    "(EXTRACT(epoch FROM pg_catalog.now()) OPERATOR(pg_catalog.*) 1000000)::pg_catalog.int8"

// The exchange of a call whose result has the registry's now() in column
// `col`; asked: when the node began it (the confirmation runs from then).
snowflake::RegistryReading reading_of(const Call &c, int col, int64_t asked) {
    snowflake::RegistryReading r;
    r.asked_unix_ms = asked;
    r.sent_unix_ms = c.sent_unix_ms;
    r.received_unix_ms = c.received_unix_ms;
    r.registry_unix_us = strtoll(PQgetvalue(c.res, 0, col), nullptr, 10);
    return r;
}

// Connects to the registry and runs one query: `sql_fmt` with %s for the
// extension's schema there (quoted), so that objects of the same name
// elsewhere on the registry's search_path are never called.
Call registry_call(const char *sql_fmt, int nparams, const Oid *types, const char *const *params) {
    Call c{};
    PGconn *conn;
    ClientResult r = registry_connect(guc_registry, &got_sigterm, &conn, c.msg, sizeof c.msg);
    if (r == ClientResult::Interrupted)
        stop_on_sigterm();
    char schema[NAMEDATALEN * 2 + 3];
    if (r != ClientResult::Ok || !registry_schema(conn, schema, sizeof schema, c.msg, sizeof c.msg)) {
        if (conn)
            PQfinish(conn);
        return c;
    }
    char sql[1024];  // the longest query (reserve) and a quoted schema name fit
    snprintf(sql, sizeof sql, sql_fmt, schema);
    PGresult *res;
    c.sent_unix_ms = wall_clock_unix_ms();
    r = registry_query(conn, sql, nparams, types, params, &got_sigterm, &res, c.msg, sizeof c.msg);
    c.received_unix_ms = wall_clock_unix_ms();
    if (r == ClientResult::Interrupted) {
        PQfinish(conn);
        stop_on_sigterm();
    }
    // An error result is the registry refusing; no result at all is a
    // timeout or a lost connection, which msg describes.
    c.ok = r == ClientResult::Ok && PQntuples(res) == 1;
    c.refused = r != ClientResult::Ok && res != nullptr;
    const char *sqlstate = c.refused ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
    strlcpy(c.sqlstate, sqlstate ? sqlstate : "", sizeof c.sqlstate);
    if (c.ok) {
        c.res = res;
    } else {
        if (r == ClientResult::Ok)
            snprintf(c.msg, sizeof c.msg, "the registry answered with %d rows", PQntuples(res));
        PQclear(res);
    }
    PQfinish(conn);
    return c;
}

// Logs a failure at LOG the first time, at DEBUG1 while it stays the same.
void log_failure(const char *what, const Call &c, char *last, size_t last_len) {
    char line[700];
    snprintf(line, sizeof line, "%s%s", c.refused ? "the registry refused: " : "", c.msg);
    ereport(strcmp(last, line) == 0 ? DEBUG1 : LOG,
            (errmsg("snowflake registrar: could not %s: %s", what, line)));
    strlcpy(last, line, last_len);
}

// The retired identity last reported to the registry by this process.
snowflake::NodePair reported_pair{0, -1};
int64_t reported_until = -1;
char retire_failure[700];

// Tells the registry about the identity the node left, once per (pair,
// retired_until).  A registry without the 1.5 functions, or a role without
// EXECUTE on snowflake_registry_retire, is logged and asked again later.
void report_retirement(SharedState *s) {
    IdentityView v;
    (void)identity_in_use(&v);
    const snowflake::IdentityHistory &h = v.history;
    if (h.retired.none() || (h.retired == reported_pair && h.retired_until_unix_ms == reported_until))
        return;
    char key[snowflake::kNodeKeyMaxLen + 1], dc[16], worker[16], until[24];
    identity_node_key(key, sizeof key);
    snprintf(dc, sizeof dc, "%lld", static_cast<long long>(h.retired.datacenter_id));
    snprintf(worker, sizeof worker, "%lld", static_cast<long long>(h.retired.worker_id));
    snprintf(until, sizeof until, "%lld", static_cast<long long>(h.retired_until_unix_ms));
    char secret[kNodeSecretLen + 1];
    node_secret(secret, sizeof secret);
    const char *params[5] = {key, dc, worker, until, secret};
    const Oid types[5] = {TEXTOID, INT4OID, INT4OID, INT8OID, TEXTOID};
    Call c = registry_call("SELECT %s.snowflake_registry_retire($1, $2, $3, "
                           "'epoch'::pg_catalog.timestamptz OPERATOR(pg_catalog.+) "
                           "($4 OPERATOR(pg_catalog.*) '1 ms'::pg_catalog.interval), $5)",
                           5, types, params);
    if (!c.ok) {
        log_failure("report the retired identity", c, retire_failure, sizeof retire_failure);
        return;
    }
    PQclear(c.res);
    reported_pair = h.retired;
    reported_until = h.retired_until_unix_ms;
    retire_failure[0] = '\0';
    ereport(LOG, (errmsg("snowflake registrar: told the registry that node %s left datacenter_id "
                         "%s worker_id %s, with ids up to %lld ms after 1970",
                         key, dc, worker, static_cast<long long>(h.retired_until_unix_ms))));
}

// A time at or after every id this node has issued: its durable mark (or
// the word, if that is higher).
int64_t ids_until_unix_ms(SharedState *s) {
    LWLockAcquire(&s->lock, LW_SHARED);
    int64_t until = s->file_mark_unix_ms;
    LWLockRelease(&s->lock);
    const int64_t reserved = static_cast<int64>(pg_atomic_read_u64(&s->reserved_ms));
    const int64_t word = snowflake::word_ms(g_layout, pg_atomic_read_u64(&s->word));
    if (reserved + g_layout.epoch_ms > until)
        until = reserved + g_layout.epoch_ms;
    if (word + g_layout.epoch_ms > until)
        until = word + g_layout.epoch_ms;
    return until;
}

// The last answer to a reservation, to log changes only.
char last_verdict[700];

// Reserves the configured pair.  Returns true when the registry answered
// (whatever it said), *refused whether it refuses the pair.
bool reserve_once(SharedState *s, bool *refused) {
    IdentityView v;
    if (!identity_in_use(&v) || v.source != IdentitySource::Configured)
        return true;  // nothing to reserve (the identity moved meanwhile)
    // The confirmation lasts from now (IdentityShared::lease_until_unix_ms).
    const int64_t sent = wall_clock_unix_ms();
    char key[snowflake::kNodeKeyMaxLen + 1], dc_bits[16], w_bits[16], dc[16], worker[16], tl[16],
        ids_until[24];
    identity_node_key(key, sizeof key);
    snprintf(ids_until, sizeof ids_until, "%lld", static_cast<long long>(ids_until_unix_ms(s)));
    snprintf(dc_bits, sizeof dc_bits, "%d", g_layout.datacenter_bits);
    snprintf(w_bits, sizeof w_bits, "%d", g_layout.worker_bits);
    snprintf(dc, sizeof dc, "%d", v.datacenter_id);
    snprintf(worker, sizeof worker, "%d", v.worker_id);
    snprintf(tl, sizeof tl, "%u", static_cast<unsigned>(GetWALInsertionTimeLine()));
    char secret[kNodeSecretLen + 1];
    node_secret(secret, sizeof secret);
    // How long this confirmation lasts: a node that takes the pair over
    // (a promoted standby, while this one may still run) is held back until
    // it ends.
    char lease[16];
    snprintf(lease, sizeof lease, "%d", guc_registry_lease_s);
    const char *params[9] = {key, dc_bits, w_bits, dc, worker, tl, ids_until, secret, lease};
    const Oid types[9] = {TEXTOID, INT4OID, INT4OID, INT4OID, INT4OID, INT4OID, INT8OID, TEXTOID,
                          INT4OID};
    // Rounded up: a time between two milliseconds is held back to the later.
    Call c = registry_call(
        "SELECT CASE WHEN pg_catalog.isfinite(r.retired_until) THEN "
        "pg_catalog.ceil(pg_catalog.date_part('epoch', r.retired_until) "
        "OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8 END, r.retired_by, r.refused, "
        REGISTRY_NOW_US ", r.retired_until OPERATOR(pg_catalog.=) "
        "'-infinity'::pg_catalog.timestamptz FROM %s.snowflake_registry_reserve($1, $2, $3, $4, $5, $6, "
        "'epoch'::pg_catalog.timestamptz OPERATOR(pg_catalog.+) "
        "($7 OPERATOR(pg_catalog.*) '1 ms'::pg_catalog.interval), $8, "
        "$9 OPERATOR(pg_catalog.*) '1 s'::pg_catalog.interval) r",
        9, types, params);
    if (!c.ok) {
        log_failure("reserve the configured pair", c, last_verdict, sizeof last_verdict);
        identity_note_registry_failure(s, RegistryState::Waiting, last_verdict);
        return false;
    }
    const int64_t until = PQgetisnull(c.res, 0, 0) ? -1 : strtoll(PQgetvalue(c.res, 0, 0), nullptr, 10);
    const char *by = PQgetisnull(c.res, 0, 1) ? nullptr : PQgetvalue(c.res, 0, 1);
    const char *why = PQgetisnull(c.res, 0, 2) ? nullptr : PQgetvalue(c.res, 0, 2);
    const bool cleared = !PQgetisnull(c.res, 0, 4) && PQgetvalue(c.res, 0, 4)[0] == 't';
    identity_registry_verdict(s, v.datacenter_id, v.worker_id, v.generation,
                              reading_of(c, 3, sent), until, cleared, by, why);
    char verdict[700];
    if (why)
        snprintf(verdict, sizeof verdict, "the registry refuses datacenter_id %s worker_id %s to "
                 "this node: %s; no id is issued under it", dc, worker, why);
    else if (until >= 0)
        snprintf(verdict, sizeof verdict, "node %s retired datacenter_id %s worker_id %s until %lld "
                 "ms after 1970; every id of this node under it carries a later time (ids wait "
                 "until the clock is past it)",
                 by ? by : "?", dc, worker, static_cast<long long>(until));
    else if (cleared)
        snprintf(verdict, sizeof verdict, "reserved datacenter_id %s worker_id %s for node %s; "
                 "the registry's owner cleared its hold-back", dc, worker, key);
    else
        snprintf(verdict, sizeof verdict, "reserved datacenter_id %s worker_id %s for node %s",
                 dc, worker, key);
    ereport(strcmp(verdict, last_verdict) == 0 ? DEBUG1 : (why ? WARNING : LOG),
            (errmsg("snowflake registrar: %s", verdict)));
    strlcpy(last_verdict, verdict, sizeof last_verdict);
    PQclear(c.res);
    *refused = why != nullptr;
    return true;
}

// One claim or renewal.  Returns true when the node holds a claim the
// registry confirmed.
bool claim_once(SharedState *s, bool *first_confirmation) {
    char key[snowflake::kNodeKeyMaxLen + 1];
    identity_node_key(key, sizeof key);
    int held_dc, held_worker;
    const bool holding = identity_held_claim(s, &held_dc, &held_worker);

    char dc_bits[16], w_bits[16], dc_text[16], w_text[16];
    snprintf(dc_bits, sizeof dc_bits, "%d", g_layout.datacenter_bits);
    snprintf(w_bits, sizeof w_bits, "%d", g_layout.worker_bits);
    snprintf(dc_text, sizeof dc_text, "%d", held_dc);
    snprintf(w_text, sizeof w_text, "%d", held_worker);
    char secret[kNodeSecretLen + 1];
    node_secret(secret, sizeof secret);
    const char *params[6] = {key, dc_bits, w_bits, secret, dc_text, w_text};
    const Oid types[6] = {TEXTOID, INT4OID, INT4OID, TEXTOID, INT4OID, INT4OID};
    // The confirmation lasts from now (IdentityShared::lease_until_unix_ms).
    const int64_t sent = wall_clock_unix_ms();
    Call c = registry_call(
        holding ? "SELECT datacenter_id, worker_id, " REGISTRY_NOW_US
                  " FROM %s.snowflake_registry_renew($1, $2, $3, $5, $6, $4)"
                : "SELECT datacenter_id, worker_id, " REGISTRY_NOW_US
                  " FROM %s.snowflake_registry_claim($1, $2, $3, $4)",
        holding ? 6 : 4, types, params);
    bool ok = c.ok && !PQgetisnull(c.res, 0, 0) && !PQgetisnull(c.res, 0, 1);
    int dc = -1, worker = -1;
    snowflake::RegistryReading reading{};
    if (ok) {
        reading = reading_of(c, 2, sent);
        dc = atoi(PQgetvalue(c.res, 0, 0));
        worker = atoi(PQgetvalue(c.res, 0, 1));
        ok = dc >= 0 && dc <= g_layout.max_datacenter_id() && worker >= 0 &&
             worker <= g_layout.max_worker_id();
        if (!ok)
            snprintf(c.msg, sizeof c.msg, "the registry answered with datacenter_id %d worker_id "
                     "%d, outside this node's layout", dc, worker);
    }
    if (c.ok)
        PQclear(c.res);
    if (!ok) {
        char why[700];
        snprintf(why, sizeof why, "%s%s", c.refused ? "the registry refused the claim: " : "",
                 c.msg);
        ereport(LOG, (errmsg("snowflake registrar: %s", why)));
        const bool exhausted = strcmp(c.sqlstate, "53400") == 0;
        identity_note_registry_failure(s, exhausted ? RegistryState::Exhausted : RegistryState::Waiting, why);
        return false;
    }

    int old_dc, old_worker;
    switch (identity_adopt_claim(s, dc, worker, key, &old_dc, &old_worker,
                                 IdentitySource::Claimed, &reading)) {
    case Adopted::ConfiguredWins:
        ereport(LOG, (errmsg("snowflake registrar: snowflake.worker_id is set; the configured "
                             "identity is used and reserved instead of a claim")));
        return true;
    case Adopted::New:
        ereport(LOG, (errmsg("snowflake registrar: node %s claimed datacenter_id %d worker_id %d",
                             key, dc, worker)));
        break;
    case Adopted::Moved:
        ereport(WARNING,
                (errmsg("snowflake registrar: the registry moved node %s from datacenter_id %d "
                        "worker_id %d to datacenter_id %d worker_id %d",
                        key, old_dc, old_worker, dc, worker),
                 errdetail("The registry no longer held this node's claim, and another node "
                           "holds its pair now.")));
        break;
    case Adopted::Same:
        ereport(*first_confirmation ? LOG : DEBUG1,
                (errmsg("snowflake registrar: the registry confirmed the claim of node %s: "
                        "datacenter_id %d worker_id %d",
                        key, dc, worker)));
        break;
    }
    *first_confirmation = false;
    return true;
}

// Whether the registry's last answer proved this node's clock too far from
// the registry's (registry_confirmation.hpp); logged when that changes.
bool skew_stops_ids() {
    static bool was_blocked = false;
    IdentityView v;
    (void)identity_in_use(&v);
    if (v.skew_blocked != was_blocked || v.skew_blocked)
        ereport(v.skew_blocked == was_blocked ? DEBUG1 : v.skew_blocked ? WARNING : LOG,
                (errmsg(v.skew_blocked
                            ? "snowflake registrar: this node's clock is %lld ms %s the registry's "
                              "(measured within %lld ms), more than snowflake.registry_max_skew "
                              "(%d ms): no id is issued under the pair until it is within it"
                            : "snowflake registrar: this node's clock is %lld ms %s the registry's "
                              "(measured within %lld ms), within snowflake.registry_max_skew "
                              "(%d ms): ids go on",
                        static_cast<long long>(v.skew.offset_ms < 0 ? -v.skew.offset_ms
                                                                    : v.skew.offset_ms),
                        v.skew.offset_ms < 0 ? "behind" : "ahead of",
                        static_cast<long long>(v.skew.error_ms), v.max_skew_ms)));
    was_blocked = v.skew_blocked;
    return v.skew_blocked;
}

// How often a confirmed pair is renewed: every minute, and at least three
// times per snowflake.registry_lease, so that a renewal that fails is
// retried before the confirmation runs out.
long renew_interval_ms(SharedState *s) {
    LWLockAcquire(&s->lock, LW_SHARED);
    const long third = s->identity.lease_ms / 3;
    LWLockRelease(&s->lock);
    return third < kRenewMs ? third : kRenewMs;
}

void forget_latch(int, Datum) {
    SharedState *s = g_shared;
    if (s != nullptr && s->registrar_latch == MyLatch)
        s->registrar_latch = nullptr;
}

}  // namespace

void register_registrar() {
    // A registry node claims its pair; a configured one reserves it.
    if (!registry_configured())
        return;
    register_worker("snowflake registrar", "snowflake_registrar_main", 5);
}

}  // namespace sfpg

extern "C" {

PGDLLEXPORT void snowflake_registrar_main(Datum arg);

static void registrar_body() {
    using namespace sfpg;
    pqsignal(SIGTERM, handle_sigterm);
    BackgroundWorkerUnblockSignals();
    SharedState *s = g_shared;
    before_shmem_exit(forget_latch, 0);
    s->registrar_latch = MyLatch;
    if (!identity_is_configured(s))
        identity_note_registry_failure(s, RegistryState::Waiting, "no answer from the registry yet");
    // Claim or reserve (or confirm the resumed claim) now, then every
    // minute (more often with a short snowflake.registry_lease), and at once
    // when the identity changes (the latch).  Failures are logged with the
    // reason; retries double from 1 s up to 10 s.
    bool first_confirmation = true;
    bool asked_again = false;
    long retry_ms = kRetryMs;
    for (;;) {
        if (got_sigterm)
            stop_on_sigterm();
        report_retirement(s);
        long wait_ms;
        bool refused = false;
        bool done = identity_is_configured(s) ? reserve_once(s, &refused)
                                              : claim_once(s, &first_confirmation);
        // A clock too far from the registry's is measured again soon.
        if (done && skew_stops_ids())
            done = false;
        const long renew_ms = renew_interval_ms(s);
        if (done && !refused && identity_awaits_confirmation(s) && !asked_again) {
            // The identity changed while the registry answered for the old
            // one (a reload, whose wake-up the call consumed): ask at once.
            wait_ms = 0;
            asked_again = true;
        } else if (done && !refused) {
            wait_ms = renew_ms;
            retry_ms = kRetryMs;
            asked_again = false;
        } else {
            asked_again = false;
            // Soon, whether the node holds a pair or not: ids under it stop
            // when its confirmation runs out.
            const long cap = kMaxRetryMs < renew_ms ? kMaxRetryMs : renew_ms;
            wait_ms = retry_ms < cap ? retry_ms : cap;
            retry_ms = retry_ms * 2 > cap ? cap : retry_ms * 2;
        }
        if (wait_ms == 0)
            continue;
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, wait_ms,
                        PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
    }
}

void snowflake_registrar_main(Datum) { sfpg::firewall_void(registrar_body); }

}  // extern "C"
