// Background worker slots: snowflake's workers hold theirs for the server's
// lifetime, and a server that cannot give them one must not start.
#pragma once

namespace sfpg {

// How many background worker slots snowflake takes with the current
// settings: the reserver, plus the registrar in registry mode or the Citus
// identity reader in Citus mode.
int snowflake_worker_slots();

// While preloading, right after RegisterBackgroundWorker: refuses to start
// the server (FATAL naming max_worker_processes) unless the worker `name`
// was registered.  PostgreSQL itself only logs a line when
// max_worker_processes is used up, and without the reserver every id would
// wait and fail.
void refuse_unless_registered(const char *name);

}  // namespace sfpg
