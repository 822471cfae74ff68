// GUC definitions and start-up validation.
//
// Why validate twice: check hooks reject bad values on reload (and keep the
// old value), but at start PostgreSQL turns a rejected value of an
// extension's setting into a WARNING and the default -- a silent default is
// not acceptable for a node's identity or epoch.  So _PG_init captures the
// raw configured strings before defining the settings and validates them
// together (ranges depend on the widths), refusing to start on any error.
#include <climits>
#include <cstring>

#include "../core/epoch.hpp"
#include "node_identity.hpp"
#include "settings.hpp"
#include "shared_state.hpp"

#include "pg_includes.hpp"
extern "C" {
#include "access/xact.h"
#include "utils/guc_tables.h"
#include "utils/varlena.h"
}

namespace sfpg {

int guc_worker_id = -1;
int guc_datacenter_id = 0;
int guc_clock_policy = static_cast<int>(snowflake::ClockPolicy::Borrow);
int guc_max_clock_backward_ms = 10000;
bool guc_random_sequence_start = false;
char *guc_registry = nullptr;
char *guc_citus_database = nullptr;
int guc_registry_wait_timeout_ms = 10000;
int guc_registry_lease_s = kRegistryLeaseMaxS;
bool guc_issue_without_registry = false;
int guc_registry_max_skew_ms = 1000;

snowflake::Layout g_layout;
const char *g_layout_error = nullptr;

namespace {

int guc_datacenter_bits = 5;
int guc_worker_bits = 5;
int guc_sequence_bits = 12;
char *guc_epoch = nullptr;

const struct config_enum_entry policy_options[] = {
    {"error", static_cast<int>(snowflake::ClockPolicy::Error), false},
    {"wait", static_cast<int>(snowflake::ClockPolicy::Wait), false},
    {"borrow", static_cast<int>(snowflake::ClockPolicy::Borrow), false},
    {nullptr, 0, false}};

// Error text from validation, built in a static buffer so that no C++ object
// is alive when the caller ereports.
char validation_detail[320];
// The message of a start-up refusal that names more than one setting (a
// layout whose widths are fine alone but too wide together); empty when the
// refusal names one setting.
char validation_message[256];

// 10000-01-01 00:00:00 UTC in Unix ms: the epoch lies before it.
constexpr int64_t kEpochEndMs = 253402300800000;

// Parses an epoch setting value; on failure fills validation_detail.
bool epoch_value(const char *text, int64_t *out) {
    if (!snowflake::parse_epoch(text, strlen(text), out)) {
        snprintf(validation_detail, sizeof validation_detail,
                 "The epoch must be an integer number of milliseconds since 1970-01-01 UTC, "
                 "or a timestamp such as \"2020-01-01 00:00:00+00\".");
        return false;
    }
    // Only the range is checked here.  A clock still behind the epoch (a
    // host booting before its time is synchronised) is reported when ids
    // are asked for, never by refusing to start the server.
    if (*out < 0 || *out >= kEpochEndMs) {
        snprintf(validation_detail, sizeof validation_detail,
                 "The epoch must lie between 1970-01-01 and 9999-12-31 UTC.");
        return false;
    }
    return true;
}

bool id_in_range(int value, int bits, bool allow_unset) {
    if (allow_unset && value == -1)
        return true;
    return value >= 0 && static_cast<int64_t>(value) < (int64_t{1} << bits);
}

void id_range_detail(const char *bits_name, int bits, bool allow_unset) {
    snprintf(validation_detail, sizeof validation_detail,
             "Valid values are 0 to %lld (%s = %d)%s.",
             static_cast<long long>((int64_t{1} << bits) - 1), bits_name, bits,
             allow_unset ? ", or -1 for unset" : "");
}

const char *const kWidthNames[3] = {"snowflake.datacenter_bits", "snowflake.worker_bits",
                                    "snowflake.sequence_bits"};

// validation_detail for width i (0 datacenter, 1 worker, 2 sequence) when
// the widths are `bits`: its valid range given the other two.
void width_range_detail(int i, const int bits[3]) {
    using snowflake::kIdBits;
    using snowflake::kMinSequenceBits;
    using snowflake::kMinTimestampBits;
    constexpr int kMaxWidths = kIdBits - kMinTimestampBits;  // 28: the three together
    const int min = i == 2 ? kMinSequenceBits : 0;
    const int j1 = i == 0 ? 1 : 0, j2 = i == 2 ? 1 : 2;
    const int max = kMaxWidths - bits[j1] - bits[j2];
    if (max < min)
        snprintf(validation_detail, sizeof validation_detail,
                 "The three widths add up to at most %d (the timestamp keeps at least %d "
                 "bits), and %s = %d with %s = %d leave no room.",
                 kMaxWidths, kMinTimestampBits, kWidthNames[j1], bits[j1], kWidthNames[j2],
                 bits[j2]);
    else
        snprintf(validation_detail, sizeof validation_detail,
                 "Valid values are %d to %d with %s = %d and %s = %d: the three widths add up "
                 "to at most %d, so that the timestamp keeps at least %d bits.",
                 min, max, kWidthNames[j1], bits[j1], kWidthNames[j2], bits[j2], kMaxWidths,
                 kMinTimestampBits);
}

// Set once the layout settings are defined: their values are then the
// layout the server runs with, and a new value (ALTER SYSTEM, or a reload of
// an edited file) applies at the next start only.
bool layout_defined = false;

// ALTER SYSTEM of a layout setting on a node that has issued ids: the next
// start will refuse the value (new ids could collide with issued ones), so
// say so now.  Only in a transaction (ALTER SYSTEM): a reload runs the check
// hooks in every process, which need not all repeat it.
void warn_next_start_refuses(const char *name) {
    SharedState *s = g_shared;
    if (!IsUnderPostmaster || s == nullptr || MyProc == nullptr || !IsTransactionState())
        return;
    LWLockAcquire(&s->lock, LW_SHARED);
    const int64 mark = s->file_mark_unix_ms;
    LWLockRelease(&s->lock);
    if (mark < 0)
        return;
    ereport(WARNING,
            (errmsg("the server will refuse to start with this value of %s", name),
             errdetail("This node has issued ids under the running value, which snowflake.state "
                       "records; ids under the new one could collide with them."),
             errhint("Set it back, or follow \"Changing the epoch or layout\" in the snowflake "
                     "documentation before the next start.")));
}

bool check_epoch(char **newval, void **, GucSource) {
    int64_t ms;
    if (*newval == nullptr)
        return true;
    if (!epoch_value(*newval, &ms)) {
        GUC_check_errdetail("%s", validation_detail);
        return false;
    }
    // Moving the epoch later makes new ids smaller than issued ones.
    if (layout_defined && ms > g_layout.epoch_ms)
        warn_next_start_refuses("snowflake.epoch");
    return true;
}

// A width's own range is the setting's minimum and maximum; together with
// the other two (as the server runs now) it must leave the timestamp its
// minimum, or the next start would refuse it: refused now instead.
bool check_width(int which, int newval) {
    if (!layout_defined)
        return true;  // while preloading: validated together, before defining
    int bits[3] = {g_layout.datacenter_bits, g_layout.worker_bits, g_layout.sequence_bits};
    if (bits[which] == newval)
        return true;
    bits[which] = newval;
    if (snowflake::validate_widths(bits[0], bits[1], bits[2]) != snowflake::LayoutError::None) {
        width_range_detail(which, bits);
        GUC_check_errdetail("%s", validation_detail);
        GUC_check_errhint("The server would refuse to start with it.");
        return false;
    }
    warn_next_start_refuses(kWidthNames[which]);
    return true;
}

bool check_datacenter_bits(int *newval, void **, GucSource) { return check_width(0, *newval); }
bool check_worker_bits(int *newval, void **, GucSource) { return check_width(1, *newval); }
bool check_sequence_bits(int *newval, void **, GucSource) { return check_width(2, *newval); }

// The identity's check hooks only validate the range.  What a reload does to
// the identity in use (never change it by omission) is decided where the
// identity is published (node_identity.cpp, identity_after_reload), not here: a process that
// initialises or restores its settings (a parallel worker resets every
// setting to its default first) must never fail on them.
bool check_worker_id(int *newval, void **, GucSource) {
    if (id_in_range(*newval, guc_worker_bits, true))
        return true;
    id_range_detail("snowflake.worker_bits", guc_worker_bits, true);
    GUC_check_errdetail("%s", validation_detail);
    return false;
}

bool check_datacenter_id(int *newval, void **, GucSource) {
    if (id_in_range(*newval, guc_datacenter_bits, false))
        return true;
    id_range_detail("snowflake.datacenter_bits", guc_datacenter_bits, false);
    GUC_check_errdetail("%s", validation_detail);
    return false;
}

struct RawValue {
    const char *name;
    char *text;  // as written in the configuration, or null
};

// The configured (placeholder) value of a setting before we define it.
char *raw_setting(const char *name) {
    const char *v = GetConfigOption(name, true, false);
    return v ? MemoryContextStrdup(TopMemoryContext, v) : nullptr;
}

[[noreturn]] void refuse(const char *name, const char *text) {
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("invalid value for parameter \"%s\": \"%s\"", name, text),
                    errdetail("%s", validation_detail),
                    errhint("Fix %s in postgresql.conf (or postgresql.auto.conf) and start the "
                            "server again.",
                            name)));
    pg_unreachable();
}

// A refusal naming several settings (validation_message).
[[noreturn]] void refuse_together() {
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s", validation_message),
                    errdetail("%s", validation_detail),
                    errhint("Fix them in postgresql.conf (or postgresql.auto.conf) and start the "
                            "server again.")));
    pg_unreachable();
}

// The range of a setting in milliseconds, also in the unit the value was
// written in (days when none or ms), and a word about a unit PostgreSQL does
// not know ("10 minutes"): a limit in ms alone does not say what to write.
void ms_range_detail(const char *text, int64_t min, int64_t max) {
    static const struct {
        const char *name;
        double per_ms;
    } units[] = {{"us", 1000.0}, {"ms", 1.0}, {"s", 1e-3}, {"min", 1.0 / 60000},
                 {"h", 1.0 / 3600000}, {"d", 1.0 / 86400000}};
    size_t end = strlen(text);
    while (end > 0 && text[end - 1] == ' ')
        end--;
    size_t start = end;
    while (start > 0 && ((text[start - 1] >= 'a' && text[start - 1] <= 'z') ||
                         (text[start - 1] >= 'A' && text[start - 1] <= 'Z')))
        start--;
    const size_t len = end - start;
    int unit = -1;
    for (int i = 0; i < 6; i++)
        if (len == strlen(units[i].name) && strncmp(text + start, units[i].name, len) == 0)
            unit = i;
    const int shown = unit < 0 || unit == 1 ? 5 : unit;  // days, else the unit written
    // Cut down to two decimals, so the figure never exceeds the limit.
    const double in_unit = static_cast<long long>(max * units[shown].per_ms * 100) / 100.0;
    size_t n = 0;
    if (len > 0 && unit < 0)
        n = snprintf(validation_detail, sizeof validation_detail,
                     "\"%.*s\" is not a unit of this setting: the units are \"us\", \"ms\", "
                     "\"s\", \"min\", \"h\" and \"d\". ",
                     static_cast<int>(len), text + start);
    snprintf(validation_detail + n, sizeof validation_detail - n,
             "Valid values are %lld to %lld ms (%.*f %s).", static_cast<long long>(min),
             static_cast<long long>(max), in_unit == static_cast<long long>(in_unit) ? 0 : 2,
             in_unit, units[shown].name);
}

// Integer settings: PostgreSQL's own parser (so units and syntax match), then
// our range.  Returns false and fills validation_detail if invalid.
bool int_value(const char *text, int flags, int64_t min, int64_t max, int *out) {
    const char *hint = nullptr;
    int v;
    if (!parse_int(text, &v, flags, &hint) || v < min || v > max) {
        if (flags == GUC_UNIT_MS)
            ms_range_detail(text, min, max);
        else
            snprintf(validation_detail, sizeof validation_detail, "Valid values are %lld to %lld.",
                     static_cast<long long>(min), static_cast<long long>(max));
        return false;
    }
    *out = v;
    return true;
}

// Validates the configured layout: widths, then epoch.  On error returns the
// offending setting's name (validation_detail says why; validation_message
// is set instead when several settings are to blame).
const char *layout_from(const char *dc_bits, const char *w_bits, const char *s_bits,
                        const char *epoch, snowflake::Layout *out, const char **bad_text) {
    using snowflake::kIdBits;
    using snowflake::kMinSequenceBits;
    using snowflake::kMinTimestampBits;
    constexpr int kMaxWidths = kIdBits - kMinTimestampBits;  // 28: the three together
    snowflake::Layout l;
    struct Width {
        const char *name;
        const char *text;  // as configured, or null
        int *dst;
        int min;
        bool ok;  // an integer within [min, kMaxWidths - the others' minimums]
    } widths[] = {{"snowflake.datacenter_bits", dc_bits, &l.datacenter_bits, 0, true},
                  {"snowflake.worker_bits", w_bits, &l.worker_bits, 0, true},
                  {"snowflake.sequence_bits", s_bits, &l.sequence_bits, kMinSequenceBits, true}};
    validation_message[0] = '\0';
    for (auto &w : widths) {
        if (!w.text)
            continue;
        const char *hint = nullptr;
        int v;
        // Alone, a width may take all of kMaxWidths but the others' minimums.
        const int max = kMaxWidths - (w.dst == &l.sequence_bits ? 0 : kMinSequenceBits);
        w.ok = parse_int(w.text, &v, 0, &hint) && v >= w.min && v <= max;
        if (w.ok)
            *w.dst = v;
    }
    // A width's range depends on the other two: together they leave the
    // timestamp at least kMinTimestampBits.  The others count with their
    // configured values where those are valid, else their defaults.
    const auto range_detail = [&](int i) {
        const int bits[3] = {l.datacenter_bits, l.worker_bits, l.sequence_bits};
        width_range_detail(i, bits);
    };
    for (int i = 0; i < 3; i++) {
        if (!widths[i].ok) {
            range_detail(i);
            *bad_text = widths[i].text;
            return widths[i].name;
        }
    }
    if (snowflake::validate_widths(l.datacenter_bits, l.worker_bits, l.sequence_bits) !=
        snowflake::LayoutError::None) {
        // Each is fine alone, together they are too wide.  One configured
        // width: its range given the others.  Several: name them all, any of
        // them could be the one to change.
        int set[3], n = 0;
        for (int i = 0; i < 3; i++)
            if (widths[i].text)
                set[n++] = i;
        if (n == 1) {
            range_detail(set[0]);
            *bad_text = widths[set[0]].text;
            return widths[set[0]].name;
        }
        size_t len = 0;
        len += snprintf(validation_message + len, sizeof validation_message - len,
                        "invalid values for parameters ");
        for (int k = 0; k < n && len < sizeof validation_message; k++)
            len += snprintf(validation_message + len, sizeof validation_message - len,
                            "%s\"%s\" (\"%s\")", k == 0 ? "" : (k == n - 1 ? " and " : ", "),
                            widths[set[k]].name, widths[set[k]].text);
        snprintf(validation_detail, sizeof validation_detail,
                 "The layout %d/%d/%d (datacenter/worker/sequence bits) is invalid: %s.",
                 l.datacenter_bits, l.worker_bits, l.sequence_bits,
                 snowflake::layout_error_text(snowflake::LayoutError::TimestampTooNarrow));
        *bad_text = widths[set[n - 1]].text;
        return widths[set[n - 1]].name;
    }
    if (epoch && !epoch_value(epoch, &l.epoch_ms)) {
        *bad_text = epoch;
        return "snowflake.epoch";
    }
    *out = l;
    return nullptr;
}

void validate_node_and_policy(RawValue *raw, int n) {
    for (int i = 0; i < n; i++) {
        const char *name = raw[i].name;
        const char *text = raw[i].text;
        if (!text)
            continue;
        int v;
        bool ok;
        if (strcmp(name, "snowflake.worker_id") == 0) {
            ok = int_value(text, 0, -1, INT_MAX, &v) && id_in_range(v, g_layout.worker_bits, true);
            if (!ok)
                id_range_detail("snowflake.worker_bits", g_layout.worker_bits, true);
        } else if (strcmp(name, "snowflake.datacenter_id") == 0) {
            ok = int_value(text, 0, 0, INT_MAX, &v) &&
                 id_in_range(v, g_layout.datacenter_bits, false);
            if (!ok)
                id_range_detail("snowflake.datacenter_bits", g_layout.datacenter_bits, false);
        } else if (strcmp(name, "snowflake.max_clock_backward_ms") == 0) {
            ok = int_value(text, GUC_UNIT_MS, 0, INT_MAX, &v);
        } else if (strcmp(name, "snowflake.random_sequence_start") == 0) {
            bool b;
            ok = parse_bool(text, &b);
            snprintf(validation_detail, sizeof validation_detail, "Valid values are on and off.");
        } else {
            ok = false;
            for (const config_enum_entry *o = policy_options; o->name; o++)
                ok = ok || pg_strcasecmp(o->name, text) == 0;
            snprintf(validation_detail, sizeof validation_detail,
                     "Valid values are \"error\", \"wait\" and \"borrow\".");
        }
        if (!ok)
            refuse(name, text);
    }
}

void define_layout_settings() {
    DefineCustomIntVariable("snowflake.datacenter_bits", "Bits of an id holding the datacenter id.",
                            nullptr, &guc_datacenter_bits, 5, 0, 27, PGC_POSTMASTER, 0,
                            check_datacenter_bits, nullptr, nullptr);
    DefineCustomIntVariable("snowflake.worker_bits", "Bits of an id holding the worker id.",
                            nullptr, &guc_worker_bits, 5, 0, 27, PGC_POSTMASTER, 0,
                            check_worker_bits, nullptr, nullptr);
    DefineCustomIntVariable("snowflake.sequence_bits",
                            "Bits of an id holding the per-millisecond sequence.", nullptr,
                            &guc_sequence_bits, 12, 1, 27, PGC_POSTMASTER, 0, check_sequence_bits,
                            nullptr, nullptr);
    DefineCustomStringVariable(
        "snowflake.epoch", "Unix time in ms (or a timestamp) that timestamp 0 of an id means.",
        nullptr, &guc_epoch, "1288834974657", PGC_POSTMASTER, 0, check_epoch, nullptr, nullptr);
    layout_defined = true;
}

void define_node_settings() {
    // Declared over the whole int range: the valid range depends on the
    // layout, and the check hooks say what it is (PostgreSQL's own range
    // check, which runs first, would only quote the declared bounds).
    DefineCustomIntVariable("snowflake.worker_id", "Worker id of this node (-1 = unset).",
                            "Unique per node within its datacenter.", &guc_worker_id, -1, INT_MIN,
                            INT_MAX, PGC_SIGHUP, 0, check_worker_id, nullptr, show_worker_id);
    DefineCustomIntVariable("snowflake.datacenter_id", "Datacenter id of this node.", nullptr,
                            &guc_datacenter_id, 0, INT_MIN, INT_MAX, PGC_SIGHUP, 0,
                            check_datacenter_id, nullptr, show_datacenter_id);
    DefineCustomEnumVariable(
        "snowflake.clock_backward_policy",
        "What to do when the wall clock is behind the last id: error, wait or borrow.", nullptr,
        &guc_clock_policy, static_cast<int>(snowflake::ClockPolicy::Borrow), policy_options,
        PGC_SIGHUP, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable(
        "snowflake.max_clock_backward_ms",
        "How long wait may wait, and how far borrow may run ahead of the wall clock.", nullptr,
        &guc_max_clock_backward_ms, 10000, 0, INT_MAX, PGC_SIGHUP, GUC_UNIT_MS, nullptr, nullptr,
        nullptr);
    DefineCustomBoolVariable("snowflake.random_sequence_start",
                             "Start each millisecond's sequence at a random offset.", nullptr,
                             &guc_random_sequence_start, false, PGC_SIGHUP, 0, nullptr, nullptr,
                             nullptr);
}

// How a node with snowflake.registry waits for its registry's confirmation
// (node_identity.hpp).
void define_registry_settings() {
    DefineCustomIntVariable(
        "snowflake.registry_wait_timeout",
        "How long an id waits for the registry to confirm the node's pair before the call fails.",
        nullptr, &guc_registry_wait_timeout_ms, 10000, 0, INT_MAX, PGC_SIGHUP, GUC_UNIT_MS,
        nullptr, nullptr, nullptr);
    DefineCustomIntVariable(
        "snowflake.registry_lease",
        "How long after the registry last confirmed the node's pair the node issues ids under it.",
        nullptr, &guc_registry_lease_s, kRegistryLeaseMaxS, 2, kRegistryLeaseMaxS, PGC_SIGHUP,
        GUC_UNIT_S, nullptr, nullptr, nullptr);
    DefineCustomIntVariable(
        "snowflake.registry_max_skew",
        "How far the node's clock may be from the registry's before ids under a pair the "
        "registry confirms stop.",
        nullptr, &guc_registry_max_skew_ms, 1000, 0, 600000, PGC_SIGHUP, GUC_UNIT_MS, nullptr,
        nullptr, nullptr);
    DefineCustomBoolVariable(
        "snowflake.issue_without_registry",
        "Issue ids under the node's pair without the registry's confirmation (duplicate risk).",
        nullptr, &guc_issue_without_registry, false, PGC_SIGHUP, 0, nullptr, nullptr, nullptr);
}

}  // namespace

bool registry_configured() { return guc_registry != nullptr && guc_registry[0] != '\0'; }

bool citus_configured() { return guc_citus_database != nullptr && guc_citus_database[0] != '\0'; }

namespace {

// The setting called name (in any case), or null.
const struct config_generic *find_setting(const char *name) {
#if PG_VERSION_NUM >= 160000
    return find_option(name, false, true, DEBUG1);
#else
    struct config_generic **all = get_guc_variables();
    for (int i = 0, n = GetNumConfigOptions(); i < n; i++)
        if (pg_strcasecmp(all[i]->name, name) == 0)
            return all[i];
    return nullptr;
#endif
}

bool has_our_prefix(const char *name) { return pg_strncasecmp(name, "snowflake.", 10) == 0; }

// Our setting closest to an unknown snowflake.* name, within a few edits, or
// null: the setting a typo most likely meant.
const char *closest_setting(const char *name) {
#if PG_VERSION_NUM >= 160000
    int count = 0;
    struct config_generic **all = get_guc_variables(&count);
#else
    struct config_generic **all = get_guc_variables();
    const int count = GetNumConfigOptions();
#endif
    const int len = static_cast<int>(strlen(name));
    const char *best = nullptr;
    int best_distance = 4;  // at most 3 edits
    for (int i = 0; i < count; i++) {
        const struct config_generic *g = all[i];
        if (g == nullptr || !has_our_prefix(g->name) || (g->flags & GUC_CUSTOM_PLACEHOLDER))
            continue;
        const int d = varstr_levenshtein_less_equal(name, len, g->name,
                                                    static_cast<int>(strlen(g->name)), 1, 1, 1,
                                                    best_distance - 1, true);
        if (d < best_distance) {
            best_distance = d;
            best = g->name;
        }
    }
    return best;
}

}  // namespace

bool setting_is_set(const char *name) {
    const struct config_generic *g = find_setting(name);
    return g != nullptr && g->source != PGC_S_DEFAULT;
}

int restricted_setting_context(const char *name, const char **canonical) {
    if (!has_our_prefix(name))
        return -1;
    const struct config_generic *g = find_setting(name);
    if (g == nullptr || (g->flags & GUC_CUSTOM_PLACEHOLDER) ||
        (g->context != PGC_SIGHUP && g->context != PGC_POSTMASTER))
        return -1;
    *canonical = g->name;
    return g->context;
}

size_t unknown_settings_in_configuration(char *buf, size_t len) {
    size_t n = 0;
    buf[0] = '\0';
    const char *files[2] = {ConfigFileName, PG_AUTOCONF_FILENAME};
    for (const char *file : files) {
        if (file == nullptr)
            continue;
        ConfigVariable *head = nullptr, *tail = nullptr;
        // Quietly: a file that cannot be read or parsed was reported when it
        // was loaded; what it holds is a guess here anyway.
        (void)ParseConfigFile(file, false, nullptr, 0, 0, DEBUG2, &head, &tail);
        for (ConfigVariable *v = head; v != nullptr && n < len; v = v->next) {
            if (v->name == nullptr || !has_our_prefix(v->name))
                continue;
            const struct config_generic *g = find_setting(v->name);
            if (g != nullptr && !(g->flags & GUC_CUSTOM_PLACEHOLDER))
                continue;
            const char *meant = closest_setting(v->name);
            int w = snprintf(buf + n, len - n, "%s%s line %d sets \"%s\", which is not a snowflake "
                             "setting%s%s%s.",
                             n > 0 ? " " : "", v->filename ? v->filename : file, v->sourceline,
                             v->name, meant ? " (did you mean " : "", meant ? meant : "",
                             meant ? "?)" : "");
            n = w < 0 ? n : (static_cast<size_t>(w) >= len - n ? len - 1 : n + w);
        }
        FreeConfigVariables(head);
    }
    return n;
}

int64_t max_worker_id() { return g_layout.max_worker_id(); }
int64_t max_datacenter_id() { return g_layout.max_datacenter_id(); }

void define_settings(bool preloading) {
    char *dc_bits = raw_setting("snowflake.datacenter_bits");
    char *w_bits = raw_setting("snowflake.worker_bits");
    char *s_bits = raw_setting("snowflake.sequence_bits");
    char *epoch = raw_setting("snowflake.epoch");
    RawValue node[] = {{"snowflake.worker_id", raw_setting("snowflake.worker_id")},
                       {"snowflake.datacenter_id", raw_setting("snowflake.datacenter_id")},
                       {"snowflake.clock_backward_policy",
                        raw_setting("snowflake.clock_backward_policy")},
                       {"snowflake.max_clock_backward_ms",
                        raw_setting("snowflake.max_clock_backward_ms")},
                       {"snowflake.random_sequence_start",
                        raw_setting("snowflake.random_sequence_start")}};

    const char *bad_text = nullptr;
    const char *bad = layout_from(dc_bits, w_bits, s_bits, epoch, &g_layout, &bad_text);
    if (!preloading) {
        // Defining PGC_POSTMASTER settings after start is FATAL, so a backend
        // that loads us on demand only decodes with the configured layout.
        if (bad) {
            static char msg[600];
            if (validation_message[0])
                snprintf(msg, sizeof msg, "%s: %s", validation_message, validation_detail);
            else
                snprintf(msg, sizeof msg, "invalid value for parameter \"%s\": \"%s\": %s",
                         bad, bad_text, validation_detail);
            g_layout_error = msg;
        }
        return;
    }
    if (bad && validation_message[0])
        refuse_together();
    if (bad)
        refuse(bad, bad_text);
    define_layout_settings();
    validate_node_and_policy(node, sizeof node / sizeof node[0]);
    define_node_settings();
    DefineCustomStringVariable(
        "snowflake.registry",
        "libpq connection string of a registry server from which a node with no worker_id claims "
        "its (datacenter_id, worker_id) at start.",
        nullptr, &guc_registry, "", PGC_POSTMASTER, GUC_SUPERUSER_ONLY, nullptr, nullptr, nullptr);
    define_registry_settings();
    DefineCustomStringVariable(
        "snowflake.citus_database",
        "Database of the Citus cluster from whose group id a node with no worker_id takes its "
        "(datacenter_id, worker_id).",
        nullptr, &guc_citus_database, "", PGC_POSTMASTER, 0, nullptr, nullptr, nullptr);
    if (citus_configured() && registry_configured())
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("snowflake.registry and snowflake.citus_database are both set"),
                        errdetail("A node takes its identity from one source: snowflake.worker_id, "
                                  "else the registry, or the Citus group id."),
                        errhint("Remove one of them from postgresql.conf (or "
                                "postgresql.auto.conf) and start the server again.")));
#if PG_VERSION_NUM >= 150000
    MarkGUCPrefixReserved("snowflake");
#else  // PostgreSQL 13-14: untested (never built here; see pg_includes.hpp)
    EmitWarningsOnPlaceholders("snowflake");
#endif
}

}  // namespace sfpg
