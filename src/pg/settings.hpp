// The snowflake.* settings (GUCs) and the layout they describe.
#pragma once

#include <cstddef>

#include "../core/generator.hpp"
#include "../core/layout.hpp"

namespace sfpg {

// Current values; PostgreSQL's GUC machinery writes them.
extern int guc_worker_id;            // -1 = unset
extern int guc_datacenter_id;
extern int guc_clock_policy;         // snowflake::ClockPolicy
extern int guc_max_clock_backward_ms;
extern bool guc_random_sequence_start;
extern char *guc_registry;           // snowflake.registry ('' = none)
extern char *guc_citus_database;     // snowflake.citus_database ('' = none)

// The layout every backend uses: fixed at server start.
extern snowflake::Layout g_layout;
// Set when the layout could not be determined (library not preloaded and a
// bad value in the configuration); the message names the setting.
extern const char *g_layout_error;

// Defines the settings.  While preloading, also validates every value the
// configuration gave (PostgreSQL only WARNs about a bad value of an
// extension's setting) and refuses to start on a bad one.  Without
// preloading, only reads the configured layout so decoding still works.
void define_settings(bool preloading);

// Whether snowflake.registry is set.
bool registry_configured();

// Whether snowflake.citus_database is set.
bool citus_configured();

// Whether a setting has a value from anywhere but its built-in default
// (configuration file, ALTER SYSTEM, command line).
bool setting_is_set(const char *name);

// The context (PGC_SIGHUP or PGC_POSTMASTER) of the snowflake setting called
// name, in any case, when only the configuration changes it, and its name as
// defined in *canonical; -1 for any other name.
int restricted_setting_context(const char *name, const char **canonical);

// Names the snowflake.* lines of postgresql.conf and postgresql.auto.conf
// that set no setting of ours (a typo, removed with a WARNING at start), each
// with its file and line and the setting it likely meant, into buf (cut to
// len); returns the length written, 0 when there are none.
std::size_t unknown_settings_in_configuration(char *buf, std::size_t len);

// For error hints: the valid ranges under the current layout.
int64_t max_worker_id();
int64_t max_datacenter_id();

}  // namespace sfpg
