// Asynchronous libpq for the registrar (see registry_client.hpp).
#include <cstdlib>
#include <cstring>

#include "registry_client.hpp"

namespace sfpg {

namespace {

// A one-line copy of libpq's (possibly multi-line) message.
void one_line(char *msg, size_t msg_len, const char *prefix, const char *text) {
    snprintf(msg, msg_len, "%s%s", prefix, text ? text : "");
    // Line breaks and tabs become one space.
    char *out = msg;
    for (const char *p = msg; *p; p++) {
        const bool blank = *p == '\n' || *p == '\r' || *p == '\t' || *p == ' ';
        if (!blank)
            *out++ = *p;
        else if (out > msg && out[-1] != ' ')
            *out++ = ' ';
    }
    *out = '\0';
    for (size_t n = strlen(msg); n > 0 && msg[n - 1] == ' '; n--)
        msg[n - 1] = '\0';
}

// Milliseconds left until `deadline` (0 if past).
long ms_left(TimestampTz deadline) {
    return TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
}

// The connection string's connect_timeout in ms (libpq's own rule: at least
// 2 s), or our default if it sets none.
long connect_timeout_ms(const char *conninfo, bool *from_conninfo) {
    long ms = kRegistryConnectTimeoutMs;
    *from_conninfo = false;
    PQconninfoOption *opts = PQconninfoParse(conninfo, nullptr);
    if (opts == nullptr)
        return ms;  // PQconnectStart reports the syntax error
    for (PQconninfoOption *o = opts; o->keyword; o++) {
        if (strcmp(o->keyword, "connect_timeout") != 0 || o->val == nullptr || !*o->val)
            continue;
        char *end;
        const long s = strtol(o->val, &end, 10);
        if (*end == '\0' && s > 0) {
            ms = (s < 2 ? 2 : s > 86400 ? 86400 : s) * 1000L;
            *from_conninfo = true;
        }
    }
    PQconninfoFree(opts);
    return ms;
}

enum class Ready { Socket, TimedOut, Interrupted };

// Waits until the socket is ready for `io` (WL_SOCKET_READABLE or
// WL_SOCKET_WRITEABLE), the deadline passes, or *stop is set.  Exits at once
// if the postmaster dies.
Ready wait_socket(PGconn *conn, int io, TimestampTz deadline, const volatile sig_atomic_t *stop) {
    for (;;) {
        if (*stop)
            return Ready::Interrupted;
        const long left = ms_left(deadline);
        if (left <= 0)
            return Ready::TimedOut;
        const int rc = WaitLatchOrSocket(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH | io,
                                         PQsocket(conn), left, PG_WAIT_EXTENSION);
        if (rc & WL_LATCH_SET)
            ResetLatch(MyLatch);
        if (*stop)
            return Ready::Interrupted;
        if (rc & io)
            return Ready::Socket;
    }
}

}  // namespace

ClientResult registry_connect(const char *conninfo, const volatile sig_atomic_t *stop,
                              PGconn **out, char *msg, size_t msg_len) {
    *out = nullptr;
    // Keywords after dbname would override the connection string; before
    // it, they are defaults it may override.
    const char *keys[] = {"fallback_application_name", "dbname", nullptr};
    const char *vals[] = {"snowflake registrar", conninfo, nullptr};
    bool from_conninfo;
    const long timeout_ms = connect_timeout_ms(conninfo, &from_conninfo);
    const TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), timeout_ms);
    PGconn *conn = PQconnectStartParams(keys, vals, 1);
    if (conn == nullptr) {
        one_line(msg, msg_len, "could not connect to the registry: ", "out of memory");
        return ClientResult::Failed;
    }
    PostgresPollingStatusType status = PGRES_POLLING_WRITING;
    while (PQstatus(conn) != CONNECTION_BAD && status != PGRES_POLLING_OK &&
           status != PGRES_POLLING_FAILED) {
        if (PQsocket(conn) < 0)
            break;
        const int io = status == PGRES_POLLING_READING ? WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE;
        const Ready r = wait_socket(conn, io, deadline, stop);
        if (r == Ready::Interrupted) {
            PQfinish(conn);
            return ClientResult::Interrupted;
        }
        if (r == Ready::TimedOut) {
            PQfinish(conn);
            snprintf(msg, msg_len, "could not connect to the registry: no answer within %ld s%s",
                     timeout_ms / 1000, from_conninfo ? " (connect_timeout)" : "");
            return ClientResult::Failed;
        }
        status = PQconnectPoll(conn);
    }
    if (PQstatus(conn) != CONNECTION_OK || PQsetnonblocking(conn, 1) != 0) {
        one_line(msg, msg_len, "could not connect to the registry: ", PQerrorMessage(conn));
        PQfinish(conn);
        return ClientResult::Failed;
    }
    *out = conn;
    return ClientResult::Ok;
}

ClientResult registry_query(PGconn *conn, const char *sql, int nparams, const Oid *types,
                            const char *const *values, const volatile sig_atomic_t *stop,
                            PGresult **out, char *msg, size_t msg_len) {
    *out = nullptr;
    const TimestampTz deadline =
        TimestampTzPlusMilliseconds(GetCurrentTimestamp(), kRegistryQueryTimeoutMs);
    if (!PQsendQueryParams(conn, sql, nparams, types, values, nullptr, nullptr, 0)) {
        one_line(msg, msg_len, "could not send the claim to the registry: ", PQerrorMessage(conn));
        return ClientResult::Failed;
    }
    // Non-blocking mode: a server that stops reading cannot block the send.
    for (int f; (f = PQflush(conn)) != 0;) {
        const Ready r = f < 0 ? Ready::TimedOut : wait_socket(conn, WL_SOCKET_WRITEABLE, deadline, stop);
        if (r == Ready::Interrupted)
            return ClientResult::Interrupted;
        if (f < 0 || r == Ready::TimedOut) {
            one_line(msg, msg_len, "could not send the claim to the registry: ",
                     f < 0 ? PQerrorMessage(conn) : "timed out");
            return ClientResult::Failed;
        }
        // Flushing may need input consumed first (libpq's advice for
        // non-blocking connections).
        if (!PQconsumeInput(conn)) {
            one_line(msg, msg_len, "lost the connection to the registry: ", PQerrorMessage(conn));
            return ClientResult::Failed;
        }
    }
    PGresult *last = nullptr;
    for (;;) {
        while (PQisBusy(conn)) {
            const Ready r = wait_socket(conn, WL_SOCKET_READABLE, deadline, stop);
            if (r != Ready::Socket) {
                PQclear(last);
                if (r == Ready::Interrupted)
                    return ClientResult::Interrupted;
                snprintf(msg, msg_len, "the registry did not answer within %ld s",
                         kRegistryQueryTimeoutMs / 1000);
                return ClientResult::Failed;
            }
            if (!PQconsumeInput(conn)) {
                PQclear(last);
                one_line(msg, msg_len, "lost the connection to the registry: ",
                         PQerrorMessage(conn));
                return ClientResult::Failed;
            }
        }
        PGresult *res = PQgetResult(conn);
        if (res == nullptr)
            break;
        PQclear(last);
        last = res;
    }
    *out = last;
    if (last == nullptr) {
        one_line(msg, msg_len, "no result from the registry: ", PQerrorMessage(conn));
        return ClientResult::Failed;
    }
    if (PQresultStatus(last) != PGRES_TUPLES_OK) {
        const char *primary = PQresultErrorField(last, PG_DIAG_MESSAGE_PRIMARY);
        const char *detail = PQresultErrorField(last, PG_DIAG_MESSAGE_DETAIL);
        char text[512];
        snprintf(text, sizeof text, "%s%s%s%s", primary ? primary : PQresultErrorMessage(last),
                 detail ? " (" : "", detail ? detail : "", detail ? ")" : "");
        one_line(msg, msg_len, "", text);
        return ClientResult::Failed;
    }
    return ClientResult::Ok;
}

}  // namespace sfpg
