#include <csignal>
#include <cstring>
#include <unistd.h>

#include "registry.hpp"
#include "reservation.hpp"
#include "settings.hpp"
#include "shared_state.hpp"

#include "firewall.hpp"
extern "C" {
#include "libpq-fe.h"
#include "postmaster/postmaster.h"
}

namespace sfpg {

char *guc_registry = nullptr;

namespace {

constexpr long kRetryMs = 1000;

volatile sig_atomic_t got_sigterm = 0;

void handle_sigterm(SIGNAL_ARGS) {
    int save_errno = errno;
    got_sigterm = 1;
    SetLatch(MyLatch);
    errno = save_errno;
}

bool registry_mode() { return guc_worker_id < 0 && registry_configured(); }

// Records the outcome of an attempt where backends can see it.
void publish(RegistryState state, int dc, int worker, const char *error) {
    SharedState *s = g_shared;
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    if (state == RegistryState::Claimed)
        set_node_identity(s, dc, worker);
    strlcpy(s->registry_error, error ? error : "", sizeof s->registry_error);
    s->registry_state = state;
    LWLockRelease(&s->lock);
}

// This node's key in the registry: system identifier, host name and port.
void node_key(char *buf, size_t len) {
    char host[256] = "unknown";
    (void)gethostname(host, sizeof host - 1);
    snprintf(buf, len, "%llu:%s:%d", static_cast<unsigned long long>(GetSystemIdentifier()), host,
             PostPortNumber);
}

// One claim attempt.  Returns true when the node holds a claim.
bool try_claim() {
    char key[400];
    node_key(key, sizeof key);
    char dc_bits[16], w_bits[16];
    snprintf(dc_bits, sizeof dc_bits, "%d", g_layout.datacenter_bits);
    snprintf(w_bits, sizeof w_bits, "%d", g_layout.worker_bits);
    const char *params[3] = {key, dc_bits, w_bits};

    PGconn *conn = PQconnectdb(guc_registry);
    if (PQstatus(conn) != CONNECTION_OK) {
        char msg[256];
        snprintf(msg, sizeof msg, "could not connect to the registry: %s", PQerrorMessage(conn));
        PQfinish(conn);
        ereport(LOG, (errmsg("snowflake registrar: %s", msg)));
        publish(RegistryState::Waiting, -1, -1, msg);
        return false;
    }
    PGresult *res = PQexecParams(
        conn, "SELECT datacenter_id, worker_id FROM snowflake_registry_claim($1, $2::int, $3::int)",
        3, nullptr, params, nullptr, nullptr, 0);
    bool ok = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1;
    if (ok) {
        const int dc = atoi(PQgetvalue(res, 0, 0));
        const int worker = atoi(PQgetvalue(res, 0, 1));
        ok = dc >= 0 && dc <= g_layout.max_datacenter_id() && worker >= 0 &&
             worker <= g_layout.max_worker_id();
        if (ok) {
            publish(RegistryState::Claimed, dc, worker, nullptr);
            ereport(LOG, (errmsg("snowflake registrar: node %s claimed datacenter_id %d "
                                 "worker_id %d",
                                 key, dc, worker)));
        }
    }
    if (!ok) {
        char msg[256];
        const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
        snprintf(msg, sizeof msg, "the registry refused the claim: %s", PQerrorMessage(conn));
        const bool exhausted = state && strcmp(state, "53400") == 0;
        ereport(LOG, (errmsg("snowflake registrar: %s", msg)));
        publish(exhausted ? RegistryState::Exhausted : RegistryState::Waiting, -1, -1, msg);
    }
    PQclear(res);
    PQfinish(conn);
    return ok;
}

}  // namespace

void define_registry_setting() {
    DefineCustomStringVariable(
        "snowflake.registry",
        "libpq connection string of a registry server from which a node with no worker_id claims "
        "its (datacenter_id, worker_id) at start.",
        nullptr, &guc_registry, "", PGC_POSTMASTER, GUC_SUPERUSER_ONLY, nullptr, nullptr, nullptr);
}

void register_registrar() {
    if (!registry_mode())
        return;
    register_worker("snowflake registrar", "snowflake_registrar_main", 5);
}

bool registry_configured() { return guc_registry != nullptr && guc_registry[0] != '\0'; }

bool node_identity(int *datacenter_id, int *worker_id, const char **why) {
    // Plain data copied under the lock; the error text into a static buffer.
    static char reason[sizeof(SharedState::registry_error)];
    SharedState *s = g_shared;
    *why = nullptr;
    if (s == nullptr)
        return false;
    LWLockAcquire(&s->lock, LW_SHARED);
    *datacenter_id = s->node_datacenter_id;
    *worker_id = s->node_worker_id;
    const bool waiting = *worker_id < 0 && s->registry_state != RegistryState::None;
    if (waiting)
        strlcpy(reason, s->registry_error[0] ? s->registry_error : "no answer from the registry yet",
                sizeof reason);
    LWLockRelease(&s->lock);
    if (waiting)
        *why = reason;
    return *worker_id >= 0;
}

}  // namespace sfpg

extern "C" {

PGDLLEXPORT void snowflake_registrar_main(Datum arg);

static void registrar_body() {
    using namespace sfpg;
    pqsignal(SIGTERM, handle_sigterm);
    BackgroundWorkerUnblockSignals();
    // Retry until the claim holds: an unreachable registry at start is
    // logged with the reason at every attempt, and the node keeps trying.
    publish(RegistryState::Waiting, -1, -1, "no answer from the registry yet");
    long wait_ms = kRetryMs;
    while (!got_sigterm && !try_claim()) {
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, wait_ms,
                        PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        if (wait_ms < 10000)
            wait_ms *= 2;
    }
    // Exit code 0: the claim is made (or we are shutting down); do not restart.
    proc_exit(0);
}

void snowflake_registrar_main(Datum) { sfpg::firewall_void(registrar_body); }

}  // extern "C"
