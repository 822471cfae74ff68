// Proleptic Gregorian calendar arithmetic in UTC (Howard Hinnant's public
// domain algorithms), shared by the epoch parser and the business serials.
#pragma once

#ifdef POSTGRES_H
#error "src/core must not see PostgreSQL headers"
#endif

#include <cstdint>

namespace snowflake {

// Days since 1970-01-01 of year-month-day (month 1..12, day 1..31); any year.
int64_t days_from_civil(int64_t year, int month, int day);
// The inverse of days_from_civil.
void civil_from_days(int64_t days, int64_t *year, int *month, int *day);

}  // namespace snowflake
