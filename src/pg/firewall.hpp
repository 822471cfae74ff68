// The C++ -> PostgreSQL error firewall.
//
// Every SQL-callable entry point runs its body through firewall(): a C++
// exception must never unwind into PostgreSQL's C frames (it would abort the
// backend and make the postmaster restart every session), and ereport must
// never be called inside a catch block (its longjmp would skip the
// exception's cleanup).  So the message is copied into a static buffer in
// the catch block and reported after leaving it.
//
// The bodies themselves never keep a non-trivial C++ object alive across a
// call that can ereport(ERROR): that longjmp would skip its destructor.
#pragma once

#include <cstring>
#include <exception>

#include "pg_includes.hpp"

namespace sfpg {

// Runs body(); a C++ exception out of it becomes an ERROR, reported after
// the catch block has been left.  F is a function or a capture-by-reference
// lambda: trivially destructible, so an ereport longjmp inside body skips
// nothing.
template <typename F>
inline void run_guarded(F &&body) {
    static char message[256];  // written by the catch that reports it
    try {
        body();
        return;
    } catch (const std::exception &e) {
        strlcpy(message, e.what(), sizeof message);
    } catch (...) {
        strlcpy(message, "unknown C++ exception", sizeof message);
    }
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                    errmsg("snowflake internal error: %s", message)));
}

using EntryBody = Datum (*)(FunctionCallInfo);

// SQL functions.
inline Datum firewall(EntryBody body, FunctionCallInfo fcinfo) {
    Datum result = 0;
    run_guarded([&] { result = body(fcinfo); });
    return result;
}

// Entry points that return nothing (_PG_init, background worker mains).
inline void firewall_void(void (*body)()) { run_guarded(body); }

}  // namespace sfpg

// Declares the SQL-visible symbol `name` (with C linkage, exported) whose
// body is the C++ function `name##_body`, run behind the firewall.
#define SNOWFLAKE_ENTRY(name)                                                                    \
    static Datum name##_body(FunctionCallInfo fcinfo);                                          \
    extern "C" {                                                                                \
    PG_FUNCTION_INFO_V1(name);                                                                  \
    Datum name(PG_FUNCTION_ARGS) { return sfpg::firewall(name##_body, fcinfo); }                \
    }                                                                                           \
    static Datum name##_body(FunctionCallInfo fcinfo)
