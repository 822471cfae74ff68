// Talking to the registry server without ever blocking: asynchronous libpq
// driven by WaitLatchOrSocket (the walreceiver's pattern), so that the
// registrar answers SIGTERM and postmaster death at any point, and gives up
// on a server that accepts connections but never answers.
#pragma once

#include <csignal>
#include <cstddef>

#include "pg_includes.hpp"
extern "C" {
#include "libpq-fe.h"
}

namespace sfpg {

// Deadlines: connecting (unless the connection string sets connect_timeout)
// and each query.
constexpr long kRegistryConnectTimeoutMs = 10000;
constexpr long kRegistryQueryTimeoutMs = 10000;

enum class ClientResult { Ok, Failed, Interrupted };

// Connects to `conninfo`.  Waits on MyLatch; returns Interrupted as soon as
// *stop is set (a signal handler sets it and the latch), Failed with a
// one-line reason in msg on an error or past the deadline.  On Ok, *out is
// the connection (PQfinish it); otherwise *out is null.
ClientResult registry_connect(const char *conninfo, const volatile sig_atomic_t *stop,
                              PGconn **out, char *msg, size_t msg_len);

// Runs one parameterised query (text parameters of the given types) and
// returns its last result in *out (PQclear it), or Failed with the reason in
// msg (for an error result, *out is still set so the caller can read its
// SQLSTATE), or Interrupted.  The connection is unusable after anything but
// Ok.
ClientResult registry_query(PGconn *conn, const char *sql, int nparams, const Oid *types,
                            const char *const *values, const volatile sig_atomic_t *stop,
                            PGresult **out, char *msg, size_t msg_len);

}  // namespace sfpg
