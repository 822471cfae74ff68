// The node identity from the Citus group id (citus_identity.hpp).
#include <csignal>
#include <cstring>
#include <ctime>

#include "../core/group_identity.hpp"
#include "../core/state_record.hpp"
#include "citus_identity.hpp"
#include "node_identity.hpp"
#include "reservation.hpp"
#include "settings.hpp"
#include "shared_state.hpp"

#include "firewall.hpp"
extern "C" {
#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_database.h"
#include "commands/dbcommands.h"
#include "executor/spi.h"
#include "tcop/tcopprot.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
}

namespace sfpg {

namespace {

// How often the worker reads the group id: a node added to the cluster, or
// removed, sees its new group within this (at once when it needs an id).
// Citus's own maintenance daemon wakes about as often on every node.
constexpr long kPollMs = 2000;
constexpr int64_t kWaitMs = 2000;      // how long a backend waits for it
// What the catalog says about this node.
struct GroupReading {
    bool citus_installed;
    int64_t group;    // pg_dist_local_group.groupid
    bool has_nodes;   // pg_dist_node lists nodes (metadata of a cluster)
};

int64_t monotonic_ms() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// One read, in a transaction of its own.  Citus's catalog tables are in
// pg_catalog once the extension is installed; Citus need not be loaded to
// read them.
GroupReading read_group() {
    GroupReading g{false, 0, false};
    SetCurrentStatementStartTimestamp();
    StartTransactionCommand();
    if (SPI_connect() != SPI_OK_CONNECT)
        elog(ERROR, "snowflake citus identity: SPI_connect failed");
    PushActiveSnapshot(GetTransactionSnapshot());
    pgstat_report_activity(STATE_RUNNING, "reading the Citus group id");
    int rc = SPI_execute("SELECT 1 FROM pg_catalog.pg_extension "
                         "WHERE extname OPERATOR(pg_catalog.=) 'citus'",
                         true, 1);
    g.citus_installed = rc == SPI_OK_SELECT && SPI_processed == 1;
    if (g.citus_installed) {
        rc = SPI_execute("SELECT l.groupid::pg_catalog.int8, "
                         "EXISTS (SELECT 1 FROM pg_catalog.pg_dist_node) "
                         "FROM pg_catalog.pg_dist_local_group l",
                         true, 1);
        if (rc != SPI_OK_SELECT || SPI_processed != 1)
            elog(ERROR, "snowflake citus identity: pg_dist_local_group has no row");
        bool null1, null2;
        const Datum group = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &null1);
        const Datum nodes = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &null2);
        g.group = null1 ? 0 : DatumGetInt64(group);
        g.has_nodes = !null2 && DatumGetBool(nodes);
    }
    SPI_finish();
    PopActiveSnapshot();
    CommitTransactionCommand();
    pgstat_report_activity(STATE_IDLE, nullptr);
    return g;
}

// The last reason logged, so that a reason is logged once, not every poll.
char last_logged[256];

void log_once(int elevel, const char *msg) {
    if (strcmp(last_logged, msg) == 0)
        return;
    strlcpy(last_logged, msg, sizeof last_logged);
    ereport(elevel, (errmsg("snowflake citus identity: %s", msg)));
}

// Makes the reading the node identity, or says why there is none.
void apply(SharedState *s, const GroupReading &g) {
    char why[256];
    if (!g.citus_installed) {
        snprintf(why, sizeof why,
                 "the citus extension is not installed in database \"%s\" "
                 "(snowflake.citus_database)",
                 guc_citus_database);
        identity_drop_claim(s, RegistryState::Waiting, why);
        log_once(LOG, why);
        return;
    }
    if (g.group == 0 && !g.has_nodes) {
        snprintf(why, sizeof why,
                 "this node is not part of a Citus cluster yet: it has no Citus group in "
                 "database \"%s\"",
                 guc_citus_database);
        identity_drop_claim(s, RegistryState::Waiting, why);
        log_once(LOG, why);
        return;
    }
    int64_t dc, worker;
    if (!snowflake::identity_of_group(g_layout, g.group, &dc, &worker)) {
        snprintf(why, sizeof why,
                 "Citus group %lld does not fit the node bits: snowflake.datacenter_bits = %d "
                 "and snowflake.worker_bits = %d number groups 0 to %lld",
                 static_cast<long long>(g.group), g_layout.datacenter_bits, g_layout.worker_bits,
                 static_cast<long long>(snowflake::groups_in_layout(g_layout) - 1));
        identity_drop_claim(s, RegistryState::Exhausted, why);
        log_once(WARNING, why);
        return;
    }
    char key[snowflake::kNodeKeyMaxLen + 1];
    identity_citus_key(key, sizeof key);
    int old_dc, old_worker;
    char msg[256];
    switch (identity_adopt_claim(s, static_cast<int>(dc), static_cast<int>(worker), key, &old_dc,
                                 &old_worker, IdentitySource::Citus)) {
    case Adopted::ConfiguredWins:
        ereport(LOG, (errmsg("snowflake citus identity: snowflake.worker_id is set; the "
                             "configured identity is used")));
        proc_exit(0);  // not restarted
    case Adopted::New:
        snprintf(msg, sizeof msg, "Citus group %lld: datacenter_id %lld worker_id %lld",
                 static_cast<long long>(g.group), static_cast<long long>(dc),
                 static_cast<long long>(worker));
        log_once(LOG, msg);
        break;
    case Adopted::Moved:
        snprintf(msg, sizeof msg,
                 "the node moved to Citus group %lld: datacenter_id %lld worker_id %lld (was "
                 "datacenter_id %d worker_id %d)",
                 static_cast<long long>(g.group), static_cast<long long>(dc),
                 static_cast<long long>(worker), old_dc, old_worker);
        log_once(LOG, msg);
        break;
    case Adopted::Same:
        snprintf(msg, sizeof msg, "Citus group %lld: datacenter_id %lld worker_id %lld",
                 static_cast<long long>(g.group), static_cast<long long>(dc),
                 static_cast<long long>(worker));
        log_once(DEBUG1, msg);
        break;
    }
}

// Clears the worker's latch in shared memory on every exit.
void forget_latch(int, Datum) {
    SharedState *s = g_shared;
    if (s == nullptr)
        return;
    LWLockReleaseAll();
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    if (s->citus_reader_latch == MyLatch) {
        s->citus_reader_latch = nullptr;
        s->citus_reader_pid = 0;
    }
    LWLockRelease(&s->lock);
}

}  // namespace

void register_citus_reader() {
    if (!citus_mode())
        return;
    register_worker("snowflake citus identity", "snowflake_citus_identity_main", 10,
                    BGWORKER_BACKEND_DATABASE_CONNECTION);
}

bool wait_for_citus_identity() {
    SharedState *s = g_shared;
    const int64_t deadline = monotonic_ms() + kWaitMs;
    for (;;) {
        IdentityView v;
        if (identity_in_use(&v))
            return true;
        if (monotonic_ms() >= deadline)
            return false;
        Latch *reader = s->citus_reader_latch;
        if (reader)
            SetLatch(reader);
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 20,
                        PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
    }
}

void citus_reader_leave_database() {
    SharedState *s = g_shared;
    if (s == nullptr)
        return;
    // Its next start watches for the database rather than failing to
    // connect to it every 10 s once it is gone.
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    const int pid = s->citus_reader_pid;
    s->citus_database_in_doubt = true;
    LWLockRelease(&s->lock);
    // DROP DATABASE waits up to 5 s for the other sessions to leave; the
    // worker exits at its next look at its signals (it is idle on its latch
    // or in one short catalog read).
    if (pid > 0)
        (void)kill(pid, SIGTERM);
}

}  // namespace sfpg

extern "C" {

PGDLLEXPORT void snowflake_citus_identity_main(Datum arg);

// Whether snowflake.citus_database can be connected to now: it exists and
// accepts connections.  Read from the shared catalog, without a database.
static bool citus_database_ready() {
    SetCurrentStatementStartTimestamp();
    StartTransactionCommand();
    bool ready = false;
    const Oid db = get_database_oid(sfpg::guc_citus_database, true);
    if (OidIsValid(db)) {
        HeapTuple tup = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(db));
        if (HeapTupleIsValid(tup)) {
            ready = reinterpret_cast<Form_pg_database>(GETSTRUCT(tup))->datallowconn;
            ReleaseSysCache(tup);
        }
    }
    CommitTransactionCommand();
    return ready;
}

// Leaves quietly on SIGTERM (code 1: restarted unless the server is shutting
// down; no FATAL at every shutdown or DROP DATABASE), reloads the
// configuration, and leaves for good when snowflake.worker_id is set (the
// configured identity is used).
static void follow_configuration(sfpg::SharedState *s) {
    using namespace sfpg;
    if (ProcDiePending)
        proc_exit(1);
    CHECK_FOR_INTERRUPTS();
    if (ConfigReloadPending) {
        ConfigReloadPending = false;
        ProcessConfigFile(PGC_SIGHUP);
    }
    if (identity_is_configured(s)) {
        ereport(LOG, (errmsg("snowflake citus identity: snowflake.worker_id is set; the "
                             "configured identity is used")));
        proc_exit(0);  // not restarted
    }
}

// The database cannot be connected to (a connection failed, or it was being
// dropped): wait for it without a database, so that the log does not get a
// FATAL every 10 s while it is missing.  When it can be connected to, exit
// and be restarted (10 s later) connected to it.
static void watch_for_database(sfpg::SharedState *s) {
    using namespace sfpg;
    BackgroundWorkerInitializeConnection(nullptr, nullptr, 0);
    char why[256];
    snprintf(why, sizeof why,
             "database \"%s\" (snowflake.citus_database) does not exist or does not accept "
             "connections",
             guc_citus_database);
    bool logged = false;
    for (;;) {
        follow_configuration(s);
        if (citus_database_ready()) {
            LWLockAcquire(&s->lock, LW_EXCLUSIVE);
            s->citus_database_in_doubt = false;
            LWLockRelease(&s->lock);
            ereport(LOG, (errmsg("snowflake citus identity: database \"%s\" accepts connections "
                                 "now; the worker restarts connected to it",
                                 guc_citus_database)));
            proc_exit(1);  // restarted after bgw_restart_time
        }
        if (!logged) {
            identity_note_registry_failure(s, RegistryState::Waiting, why);
            ereport(WARNING, (errmsg("snowflake citus identity: %s", why),
                              errhint("Create the database and the citus extension in it, or "
                                      "change snowflake.citus_database (restart).")));
            logged = true;
        }
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, kPollMs,
                        PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
    }
}

static void citus_reader_body() {
    using namespace sfpg;
    pqsignal(SIGTERM, die);
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    BackgroundWorkerUnblockSignals();
    SharedState *s = g_shared;
    // A connection that fails raises FATAL here and never returns: the flag
    // stays set for the next start, which then watches instead.
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    const bool in_doubt = s->citus_database_in_doubt;
    s->citus_database_in_doubt = true;
    LWLockRelease(&s->lock);
    if (in_doubt)
        watch_for_database(s);  // never returns
    char why[256];
    snprintf(why, sizeof why,
             "the \"snowflake citus identity\" worker has not connected to database \"%s\" "
             "(snowflake.citus_database) yet",
             guc_citus_database);
    identity_note_registry_failure(s, RegistryState::Waiting, why);
    BackgroundWorkerInitializeConnection(guc_citus_database, nullptr, 0);
    before_shmem_exit(forget_latch, 0);
    LWLockAcquire(&s->lock, LW_EXCLUSIVE);
    s->citus_database_in_doubt = false;
    s->citus_reader_latch = MyLatch;
    s->citus_reader_pid = MyProcPid;
    LWLockRelease(&s->lock);
    for (;;) {
        follow_configuration(s);
        apply(s, read_group());
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, kPollMs,
                        PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
    }
}

void snowflake_citus_identity_main(Datum) { sfpg::firewall_void(citus_reader_body); }

}  // extern "C"
