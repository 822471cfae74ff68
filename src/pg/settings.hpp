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
// The registry's confirmation of the node's pair (node_identity.hpp):
extern int guc_registry_wait_timeout_ms;  // how long an id waits for it
extern int guc_registry_lease_s;          // how long one confirmation lasts
extern bool guc_issue_without_registry;   // opt-in: issue ids without it
extern int guc_registry_max_skew_ms;      // how far the node's clock may be from the registry's

// The registry gives a pair whose holder has been silent this long to
// another node (snowflake_registry_reserve, snowflake_registry_release),
// and the clock-skew margin between two servers' clocks that the docs
// state (operations.md, "Handing an identity over").  A confirmation lasts
// at most 597 s on the node's own clock: the registry's clock may be a
// margin behind it, the next holder's a margin behind the registry's, and
// one second more puts the next holder's first id strictly after the
// node's last (operations.md, "The registry's confirmation": the timeline).
constexpr int kRegistryGiveWayS = 600;
constexpr int kClockSkewMarginS = 1;
constexpr int kRegistryLeaseMaxS = kRegistryGiveWayS - 2 * kClockSkewMarginS - 1;

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
