#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "settings.hpp"
#include "state_file.hpp"
#include "upgrade_guard.hpp"

#include "pg_includes.hpp"

namespace sfpg {

namespace {

constexpr const char kMarkerText[] =
    "pg_upgrade loaded the snowflake extension into this data directory.  Before the\n"
    "first start, copy snowflake.state from the old cluster's data directory into this\n"
    "one (if the old cluster's data directory has no snowflake.state, that cluster\n"
    "never issued an id: delete this file instead).  While this file is here, the\n"
    "server refuses to start without snowflake.state, or with a node identity\n"
    "(snowflake.datacenter_id, snowflake.worker_id) other than the one snowflake.state\n"
    "records; the first start that has both right removes this file.\n";

// pg_upgrade (PostgreSQL 15 and later) keeps its logs in this directory of
// the NEW cluster's data directory while it runs.  The old cluster, which
// pg_upgrade also starts in binary-upgrade mode, never has it: nothing may be
// written there, or the old cluster would not start again after
// pg_upgrade --check.
constexpr const char *kUpgradeOutputDir = "pg_upgrade_output.d";

bool file_exists(const char *path) {
    struct stat st;
    if (stat(path, &st) == 0)
        return true;
    if (errno != ENOENT)
        ereport(ERROR, (errcode_for_file_access(), errmsg("could not stat file \"%s\": %m", path)));
    return false;
}

void write_marker() {
    // Written in place (not renamed): a torn marker still exists, which is
    // all that counts.
    int fd = OpenTransientFilePerm(kUpgradeMarkerFile, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY,
                                   S_IRUSR | S_IWUSR);
    if (fd < 0)
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not create file \"%s\": %m", kUpgradeMarkerFile)));
    const ssize_t len = static_cast<ssize_t>(sizeof kMarkerText - 1);
    errno = 0;
    if (write(fd, kMarkerText, len) != len || pg_fsync(fd) != 0) {
        if (errno == 0)
            errno = ENOSPC;
        int save_errno = errno;
        CloseTransientFile(fd);
        errno = save_errno;
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not write file \"%s\": %m", kUpgradeMarkerFile)));
    }
    if (CloseTransientFile(fd) != 0)
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not close file \"%s\": %m", kUpgradeMarkerFile)));
    fsync_fname(".", true);
    ereport(LOG, (errmsg("snowflake: pg_upgrade runs; wrote \"%s\"", kUpgradeMarkerFile),
                  errhint("The upgraded server's first start needs the old cluster's "
                          "snowflake.state and its node identity (if the old cluster has no "
                          "snowflake.state, delete \"%s\").",
                          kUpgradeMarkerFile)));
}

// The identity this server is configured with, if it is one of its
// settings (not the registry's nor the Citus group's), differs from the one
// the state file records.
bool configured_identity_differs(const snowflake::StateRecord &stored) {
    return guc_worker_id >= 0 && stored.worker_id >= 0 &&
           (stored.datacenter_id != guc_datacenter_id || stored.worker_id != guc_worker_id);
}

void refuse_other_identity(const snowflake::StateRecord &stored) {
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("snowflake node identity differs from the one \"%s\" records after "
                    "pg_upgrade",
                    kStateFile),
             errdetail("\"%s\" records datacenter %lld worker %lld; this server is configured "
                       "with datacenter %d worker %d. Under another identity than the old "
                       "cluster's, new ids could repeat those of the node that has it.",
                       kStateFile, static_cast<long long>(stored.datacenter_id),
                       static_cast<long long>(stored.worker_id), guc_datacenter_id,
                       guc_worker_id),
             errhint("Set snowflake.datacenter_id = %lld and snowflake.worker_id = %lld, as the "
                     "old cluster had them. If the new identity is meant and no other node "
                     "uses it, delete \"%s\" from this data directory instead.",
                     static_cast<long long>(stored.datacenter_id),
                     static_cast<long long>(stored.worker_id), kUpgradeMarkerFile)));
}

}  // namespace

void note_binary_upgrade() {
    if (!IsBinaryUpgrade || !file_exists(kUpgradeOutputDir))
        return;  // not the cluster pg_upgrade is making
    if (file_exists(kUpgradeMarkerFile))
        return;
    write_marker();
}

void check_upgrade_marker(const snowflake::StateRecord *stored) {
    if (IsBinaryUpgrade) {
        note_binary_upgrade();
        return;
    }
    if (!file_exists(kUpgradeMarkerFile))
        return;
    if (stored == nullptr)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("snowflake state file \"%s\" is missing after pg_upgrade", kStateFile),
                 errdetail("pg_upgrade made this data directory from a cluster that has the "
                           "snowflake extension, and does not copy that cluster's \"%s\": the "
                           "high-water mark of the ids it issued. Without it, new ids could "
                           "repeat ids already issued.",
                           kStateFile),
                 errhint("Copy \"%s\" from the old cluster's data directory into this one and "
                         "start the server again. If the old cluster has no \"%s\", it never "
                         "issued an id: delete \"%s\" from this data directory instead.",
                         kStateFile, kStateFile, kUpgradeMarkerFile)));
    if (configured_identity_differs(*stored))
        refuse_other_identity(*stored);
    // The mark came along, under the old identity: the marker has done its job.
    durable_unlink(kUpgradeMarkerFile, ERROR);
    ereport(LOG, (errmsg("snowflake: \"%s\" is present after pg_upgrade; removed \"%s\"",
                         kStateFile, kUpgradeMarkerFile)));
}

}  // namespace sfpg
