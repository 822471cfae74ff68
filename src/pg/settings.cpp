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
#include "citus_identity.hpp"
#include "registry.hpp"
#include "settings.hpp"
#include "wall_clock.hpp"

#include "pg_includes.hpp"

namespace sfpg {

int guc_worker_id = -1;
int guc_datacenter_id = 0;
int guc_clock_policy = static_cast<int>(snowflake::ClockPolicy::Borrow);
int guc_max_clock_backward_ms = 10000;
bool guc_random_sequence_start = false;

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

// Parses an epoch setting value; on failure fills validation_detail.
bool epoch_value(const char *text, int64_t *out) {
    if (!snowflake::parse_epoch(text, strlen(text), out)) {
        snprintf(validation_detail, sizeof validation_detail,
                 "The epoch must be an integer number of milliseconds since 1970-01-01 UTC, "
                 "or a timestamp such as \"2020-01-01 00:00:00+00\".");
        return false;
    }
    if (*out < 0 || *out > wall_clock_unix_ms()) {
        snprintf(validation_detail, sizeof validation_detail,
                 "The epoch must lie between 1970-01-01 UTC and now.");
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

bool check_epoch(char **newval, void **, GucSource) {
    int64_t ms;
    if (*newval == nullptr || epoch_value(*newval, &ms))
        return true;
    GUC_check_errdetail("%s", validation_detail);
    return false;
}

// Set once the node settings are defined: from then on, a value from
// PGC_S_DEFAULT is a reload resetting a setting removed from the file.
bool node_settings_defined = false;

// The node identity never changes by omission.  A reload after
// snowflake.worker_id or snowflake.datacenter_id was removed from the
// configuration (or ALTER SYSTEM RESET) would reset it to its default:
// unset, or datacenter 0, where another node may issue ids.  Refused, so
// every process keeps the running value; the postmaster says so once.
bool identity_reset_by_omission(const char *name, int newval, int current, GucSource source) {
    if (!node_settings_defined || source != PGC_S_DEFAULT || newval == current)
        return false;
    if (!IsUnderPostmaster)
        ereport(WARNING,
                (errmsg("%s was removed from the configuration; the node keeps %s = %d", name,
                        name, current),
                 errdetail("Resetting it to its default (%d) would change the node identity ids "
                           "are issued under.",
                           newval),
                 errhint("To change it, set a new value explicitly (-1 unsets "
                         "snowflake.worker_id).")));
    GUC_check_errmsg("%s was removed from the configuration; the node keeps %s = %d", name, name,
                     current);
    return true;
}

bool check_worker_id(int *newval, void **, GucSource source) {
    if (identity_reset_by_omission("snowflake.worker_id", *newval, guc_worker_id, source))
        return false;
    if (id_in_range(*newval, guc_worker_bits, true))
        return true;
    id_range_detail("snowflake.worker_bits", guc_worker_bits, true);
    GUC_check_errdetail("%s", validation_detail);
    return false;
}

bool check_datacenter_id(int *newval, void **, GucSource source) {
    if (identity_reset_by_omission("snowflake.datacenter_id", *newval, guc_datacenter_id, source))
        return false;
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

// Integer settings: PostgreSQL's own parser (so units and syntax match), then
// our range.  Returns false and fills validation_detail if invalid.
bool int_value(const char *text, int flags, int64_t min, int64_t max, int *out) {
    const char *hint = nullptr;
    int v;
    if (!parse_int(text, &v, flags, &hint) || v < min || v > max) {
        snprintf(validation_detail, sizeof validation_detail,
                 "Valid values are %lld to %lld%s.", static_cast<long long>(min),
                 static_cast<long long>(max), flags == GUC_UNIT_MS ? " milliseconds" : "");
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
        int others = 0;
        for (int j = 0; j < 3; j++)
            if (j != i)
                others += *widths[j].dst;
        const int max = kMaxWidths - others;
        const int j1 = i == 0 ? 1 : 0, j2 = i == 2 ? 1 : 2;
        if (max < widths[i].min)
            snprintf(validation_detail, sizeof validation_detail,
                     "The three widths add up to at most %d (the timestamp keeps at least %d "
                     "bits), and %s = %d with %s = %d leave no room.",
                     kMaxWidths, kMinTimestampBits, widths[j1].name, *widths[j1].dst,
                     widths[j2].name, *widths[j2].dst);
        else
            snprintf(validation_detail, sizeof validation_detail,
                     "Valid values are %d to %d with %s = %d and %s = %d: the three widths add up "
                     "to at most %d, so that the timestamp keeps at least %d bits.",
                     widths[i].min, max, widths[j1].name, *widths[j1].dst, widths[j2].name,
                     *widths[j2].dst, kMaxWidths, kMinTimestampBits);
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
                            nullptr, &guc_datacenter_bits, 5, 0, 27, PGC_POSTMASTER, 0, nullptr,
                            nullptr, nullptr);
    DefineCustomIntVariable("snowflake.worker_bits", "Bits of an id holding the worker id.",
                            nullptr, &guc_worker_bits, 5, 0, 27, PGC_POSTMASTER, 0, nullptr,
                            nullptr, nullptr);
    DefineCustomIntVariable("snowflake.sequence_bits",
                            "Bits of an id holding the per-millisecond sequence.", nullptr,
                            &guc_sequence_bits, 12, 1, 27, PGC_POSTMASTER, 0, nullptr, nullptr,
                            nullptr);
    DefineCustomStringVariable(
        "snowflake.epoch", "Unix time in ms (or a timestamp) that timestamp 0 of an id means.",
        nullptr, &guc_epoch, "1288834974657", PGC_POSTMASTER, 0, check_epoch, nullptr, nullptr);
}

void define_node_settings() {
    DefineCustomIntVariable("snowflake.worker_id", "Worker id of this node (-1 = unset).",
                            "Unique per node within its datacenter.", &guc_worker_id, -1, -1,
                            INT_MAX, PGC_SIGHUP, 0, check_worker_id, nullptr, nullptr);
    DefineCustomIntVariable("snowflake.datacenter_id", "Datacenter id of this node.", nullptr,
                            &guc_datacenter_id, 0, 0, INT_MAX, PGC_SIGHUP, 0,
                            check_datacenter_id, nullptr, nullptr);
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

}  // namespace

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
    node_settings_defined = true;
    define_registry_setting();
    define_citus_setting();
#if PG_VERSION_NUM >= 150000
    MarkGUCPrefixReserved("snowflake");
#else  // PostgreSQL 13-14: untested (never built here; see pg_includes.hpp)
    EmitWarningsOnPlaceholders("snowflake");
#endif
}

}  // namespace sfpg
