// The registry's confirmation and the registry's clock
// (registry_confirmation.hpp).
#include "registry_confirmation.hpp"
#include "settings.hpp"

namespace sfpg {

bool lease_required(const IdentityShared &id) {
    return registry_configured() && !id.without_registry &&
           (id.source == IdentitySource::Claimed || id.source == IdentitySource::Configured);
}

bool lease_holds(const IdentityShared &id, int64_t now_unix_ms) {
    return !lease_required(id) || (!id.skew_blocked && id.lease_until_unix_ms >= 0 &&
                                   now_unix_ms <= id.lease_until_unix_ms);
}

int64_t identity_not_before(const IdentityShared &id) {
    const int64_t held = id.history.not_before_unix_ms;
    const int64_t floor = lease_required(id) ? id.grant_floor_unix_ms : -1;
    return held > floor ? held : floor;
}

bool confirm_lease(IdentityShared &id, const snowflake::RegistryReading &r) {
    const snowflake::ClockSkew skew = snowflake::measure_skew(r);
    id.skew_measured = true;
    id.skew_offset_ms = skew.offset_ms;
    id.skew_error_ms = skew.error_ms;
    id.skew_blocked = snowflake::skew_beyond(skew, id.max_skew_ms);
    if (id.skew_blocked)
        return false;
    // No confirmation in force when the node asked: the registry gave the
    // pair at its now().
    if (id.lease_until_unix_ms < r.asked_unix_ms) {
        const int64_t floor = snowflake::grant_floor(r);
        if (floor > id.grant_floor_unix_ms)
            id.grant_floor_unix_ms = floor;
    }
    const int64_t until = snowflake::confirmation_end(r, id.lease_ms);
    if (until > id.lease_until_unix_ms)
        id.lease_until_unix_ms = until;
    id.registry_error[0] = '\0';
    return true;
}

void forget_confirmation(IdentityShared &id) {
    id.lease_until_unix_ms = -1;
    id.grant_floor_unix_ms = -1;
}

}  // namespace sfpg
