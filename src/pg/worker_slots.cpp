// Refusing to start without background worker slots (worker_slots.hpp).
#include <cstddef>
#include <cstring>

#include "node_identity.hpp"
#include "settings.hpp"
#include "worker_slots.hpp"

#include "pg_includes.hpp"
extern "C" {
#include "postmaster/bgworker_internals.h"
}

namespace sfpg {

int snowflake_worker_slots() {
    return 1 + (registry_mode() || citus_mode() ? 1 : 0);
}

void refuse_unless_registered(const char *name) {
    int registered = 0, ours = 0;
    // The postmaster's list of registered workers, walked by hand (ilist.h's
    // iteration macros use C-only builtins).  Older releases make it an
    // slist (ends at null), newer ones a dlist (circular: ends back at its
    // head); `auto` and both ends cover either.
    const auto *end = &BackgroundWorkerList.head;
    for (const auto *n = BackgroundWorkerList.head.next; n != nullptr && n != end; n = n->next) {
        const RegisteredBgWorker *rw = reinterpret_cast<const RegisteredBgWorker *>(
            reinterpret_cast<const char *>(n) - offsetof(RegisteredBgWorker, rw_lnode));
        const bool snowflake = strcmp(rw->rw_worker.bgw_library_name, "snowflake") == 0;
        if (snowflake && strcmp(rw->rw_worker.bgw_name, name) == 0)
            return;
        registered++;
        ours += snowflake;
    }
    const int needed = snowflake_worker_slots();
    const int short_by = registered - ours + needed - max_worker_processes;
    ereport(ERROR,
            (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
             errmsg("max_worker_processes = %d leaves no background worker slot for \"%s\"",
                    max_worker_processes, name),
             errdetail("snowflake needs %d background worker slot%s for as long as the server "
                       "runs (%s); %d %s already taken when it asked.",
                       needed, needed == 1 ? "" : "s",
                       needed == 1    ? "the reserver"
                       : citus_mode() ? "the reserver, and the Citus identity reader while "
                                        "snowflake.citus_database is set and snowflake.worker_id "
                                        "is not"
                                      : "the reserver, and the registrar while snowflake.registry "
                                        "is set and snowflake.worker_id is not",
                       registered, registered == 1 ? "was" : "were"),
             errhint("Raise max_worker_processes in postgresql.conf by at least %d and start the "
                     "server again; parallel query and logical replication take their workers "
                     "from the same slots.",
                     short_by > 1 ? short_by : 1)));
}

}  // namespace sfpg
