// The registrar: claims and renews this node's (datacenter_id, worker_id) on
// the registry server, and the glue that makes a claim survive restarts.
//
// Rules (README "Assigning node identities"):
//   - an explicit snowflake.worker_id always wins: a claim is adopted only
//     while the node has no configured identity, checked under the lock at
//     the moment of adopting it;
//   - an adopted claim is recorded in snowflake.state with the node's key, so
//     a crash restart, a clean restart or a restarted registrar resume the
//     same pair without the registry; only the node whose key it is resumes
//     it (a pg_basebackup clone has another host or port);
//   - the registry is asked again at start and then every minute, with the
//     pair the node holds: it answers with the node's claim (the same pair),
//     and when the claim is missing (restored registry, released by hand) it
//     records the pair again if it is free, else hands out a free one, which
//     the node then moves to.
#include <csignal>
#include <cstring>
#include <unistd.h>

#include "../core/state_record.hpp"
#include "node_identity.hpp"
#include "registry.hpp"
#include "reservation.hpp"
#include "settings.hpp"
#include "shared_state.hpp"

#include "registry_client.hpp"

#include "firewall.hpp"
extern "C" {
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

[[noreturn]] void stop_for_configured_identity() {
    ereport(LOG, (errmsg("snowflake registrar: snowflake.worker_id is set; the configured "
                         "identity is used and no claim is made")));
    proc_exit(0);  // exit code 0: not restarted
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

// One claim or renewal.  Returns true when the node holds a claim the
// registry confirmed.
bool claim_once(SharedState *s, bool *first_confirmation) {
    char key[snowflake::kNodeKeyMaxLen + 1];
    identity_node_key(key, sizeof key);
    int held_dc, held_worker;
    const bool holding = identity_held_claim(s, &held_dc, &held_worker);

    char msg[512];
    PGconn *conn;
    ClientResult r = registry_connect(guc_registry, &got_sigterm, &conn, msg, sizeof msg);
    if (r == ClientResult::Interrupted)
        stop_on_sigterm();
    char schema[NAMEDATALEN * 2 + 3];
    if (r != ClientResult::Ok || !registry_schema(conn, schema, sizeof schema, msg, sizeof msg)) {
        if (conn)
            PQfinish(conn);
        ereport(LOG, (errmsg("snowflake registrar: %s", msg)));
        identity_note_registry_failure(s, RegistryState::Waiting, msg);
        return false;
    }

    char sql[256];
    char dc_bits[16], w_bits[16], dc_text[16], w_text[16];
    snprintf(dc_bits, sizeof dc_bits, "%d", g_layout.datacenter_bits);
    snprintf(w_bits, sizeof w_bits, "%d", g_layout.worker_bits);
    snprintf(dc_text, sizeof dc_text, "%d", held_dc);
    snprintf(w_text, sizeof w_text, "%d", held_worker);
    const char *params[5] = {key, dc_bits, w_bits, dc_text, w_text};
    const Oid types[5] = {TEXTOID, INT4OID, INT4OID, INT4OID, INT4OID};
    // Schema-qualified: objects of the same name elsewhere on the registry's
    // search_path are never called.
    snprintf(sql, sizeof sql,
             holding ? "SELECT datacenter_id, worker_id FROM %s.snowflake_registry_renew($1, $2, "
                       "$3, $4, $5)"
                     : "SELECT datacenter_id, worker_id FROM %s.snowflake_registry_claim($1, $2, "
                       "$3)",
             schema);
    PGresult *res;
    r = registry_query(conn, sql, holding ? 5 : 3, types, params, &got_sigterm, &res, msg,
                       sizeof msg);
    if (r == ClientResult::Interrupted) {
        PQfinish(conn);
        stop_on_sigterm();
    }
    bool ok = r == ClientResult::Ok && PQntuples(res) == 1 && !PQgetisnull(res, 0, 0) &&
              !PQgetisnull(res, 0, 1);
    int dc = -1, worker = -1;
    if (ok) {
        dc = atoi(PQgetvalue(res, 0, 0));
        worker = atoi(PQgetvalue(res, 0, 1));
        ok = dc >= 0 && dc <= g_layout.max_datacenter_id() && worker >= 0 &&
             worker <= g_layout.max_worker_id();
        if (!ok)
            snprintf(msg, sizeof msg, "the registry answered with datacenter_id %d worker_id %d, "
                     "outside this node's layout", dc, worker);
    }
    // An error result is the registry refusing; no result at all is a
    // timeout or a lost connection, which msg describes.
    const bool refused = r != ClientResult::Ok && res != nullptr;
    const char *sqlstate = refused ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
    const bool exhausted = sqlstate && strcmp(sqlstate, "53400") == 0;
    PQclear(res);
    PQfinish(conn);
    if (!ok) {
        char why[600];
        snprintf(why, sizeof why, "%s%s", refused ? "the registry refused the claim: " : "", msg);
        ereport(LOG, (errmsg("snowflake registrar: %s", why)));
        identity_note_registry_failure(s, exhausted ? RegistryState::Exhausted : RegistryState::Waiting, why);
        return false;
    }

    int old_dc, old_worker;
    switch (identity_adopt_claim(s, dc, worker, key, &old_dc, &old_worker)) {
    case Adopted::ConfiguredWins:
        stop_for_configured_identity();
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

}  // namespace

void register_registrar() {
    if (!registry_mode())
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
    identity_note_registry_failure(s, RegistryState::Waiting, "no answer from the registry yet");
    // Claim (or confirm the resumed claim) now, then renew every minute.
    // Failures are logged with the reason at every attempt; retries double
    // from 1 s, up to 10 s while the node has no pair and up to the renewal
    // interval once it holds one.
    bool first_confirmation = true;
    long retry_ms = kRetryMs;
    for (;;) {
        if (got_sigterm)
            stop_on_sigterm();
        if (identity_is_configured(s))
            stop_for_configured_identity();
        long wait_ms;
        if (claim_once(s, &first_confirmation)) {
            wait_ms = kRenewMs;
            retry_ms = kRetryMs;
        } else {
            int dc, worker;
            const long cap = identity_held_claim(s, &dc, &worker) ? kRenewMs : kMaxRetryMs;
            wait_ms = retry_ms;
            retry_ms = retry_ms * 2 > cap ? cap : retry_ms * 2;
        }
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, wait_ms,
                        PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
    }
}

void snowflake_registrar_main(Datum) { sfpg::firewall_void(registrar_body); }

}  // extern "C"
