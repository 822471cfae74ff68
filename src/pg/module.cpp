// Module entry: PG_MODULE_MAGIC and _PG_init.
#include "citus_identity.hpp"
#include "registry.hpp"
#include "reservation.hpp"
#include "settings.hpp"
#include "shared_state.hpp"
#include "time_predicates.hpp"
#include "upgrade_guard.hpp"
#include "utility_hook.hpp"
#include "wal_mark.hpp"
#include "wall_clock.hpp"

#include "firewall.hpp"

extern "C" {

PG_MODULE_MAGIC;

PGDLLEXPORT void _PG_init(void);

static void init_module() {
    // Shared memory, the LWLock, the reserver and the PGC_POSTMASTER
    // settings can only be set up while the postmaster preloads us.  Loaded
    // later (CREATE EXTENSION, a first call), we only decode; functions that
    // need the generator say how to preload.
    const bool preloading = process_shared_preload_libraries_in_progress;
    // Time predicates need no shared memory: on in every backend that loads
    // the library (see time_predicates.hpp).
    sfpg::define_time_predicates_setting();
    sfpg::install_planner_hooks();
    sfpg::define_settings(preloading);
    if (!preloading) {
        // pg_upgrade LOADs every library of the old cluster into the new one.
        sfpg::note_binary_upgrade();
        return;
    }
    sfpg::calibrate_id_clock();
    sfpg::install_shmem_hooks();
    // While pg_upgrade runs the server, no id is issued and nothing may be
    // written: the reserver would leave a state file (with no mark) behind
    // at every stop, and the registrar would claim an identity.
    if (!IsBinaryUpgrade) {
        sfpg::register_reserver();
        sfpg::register_registrar();
        sfpg::register_citus_reader();
    }
    sfpg::register_wal_mark_rmgr();
    sfpg::install_utility_hook();
}

void _PG_init(void) { sfpg::firewall_void(init_module); }

}  // extern "C"
