// Partition pruning from the id bounds that time conditions imply
// (time_conditions.hpp), for tables partitioned by the id.  PostgreSQL
// prunes with conditions on the partition key; a condition on the id's time
// is not one, so without help every partition is scanned.  Two hooks add
// what the condition implies, and change nothing else:
//
// When the planner builds a partition's RelOptInfo (get_relation_info_hook;
// build_simple_rel_hook on PostgreSQL 19, which has no get_relation_info_hook),
// the bounds of its parent's conditions that are constants (a constant
// window: computed from the server's layout, fixed while the server runs)
// go through PostgreSQL's own plan-time pruning of the parent; a partition
// it would not keep is marked empty before any path is made for it, so the
// plan leaves it out and its rows leave the parent's estimate, as
// PostgreSQL's pruning by the partition key does.
//
// Bounds that are not constants when planning (relative to now(), in the
// session's time zone, a parameter of a generic plan, a value of an outer
// query) are added to the partitioned table's own list of conditions once
// its query level is planned (create_upper_paths_hook, UPPERREL_FINAL: all
// paths and estimates made), where the Append or MergeAppend plan built
// afterwards finds them and prunes when the executor starts (or at each
// rescan, for a value of an outer query).  The partitioned table evaluates
// none of its conditions itself (its partitions do), so they only prune.
// They are nodes made here, appended once per query level; nothing
// recognises them later.
#include "firewall.hpp"
#include "time_catalog.hpp"
#include "time_conditions.hpp"
#include "time_predicates.hpp"
#include "time_pruning.hpp"

extern "C" {
#include "optimizer/appendinfo.h"
#if PG_VERSION_NUM >= 190000
#include "optimizer/pathnode.h"
#endif
#include "optimizer/paths.h"
#include "optimizer/plancat.h"
#include "partitioning/partdesc.h"
#include "partitioning/partprune.h"
#include "utils/rel.h"
}

namespace sfpg {

namespace {

#if PG_VERSION_NUM >= 190000
build_simple_rel_hook_type prev_build_simple_rel = nullptr;
#else
get_relation_info_hook_type prev_get_relation_info = nullptr;
#endif
create_upper_paths_hook_type prev_create_upper_paths = nullptr;

// The bounds of rel's conditions, as clauses: the constant ones (a NULL
// one: no id satisfies the condition, which pruning takes as a
// contradiction) or the others.
List *bound_clauses(PlannerInfo *root, RelOptInfo *rel, bool constant) {
    List *result = NIL;
    ListCell *lc;
    foreach (lc, rel->baserestrictinfo) {
        auto *ri = static_cast<RestrictInfo *>(lfirst(lc));
        List *bounds = NIL;
        if (ri->pseudoconstant || !implied_bounds(root, ri->clause, rel->relid, true, &bounds))
            continue;
        ListCell *b;
        foreach (b, bounds) {
            const IdBound &bound = *static_cast<IdBound *>(lfirst(b));
            if (IsA(bound.value, Const) != constant)
                continue;
            result = lappend(result, bound_clause(bound));
        }
    }
    return result;
}

// ---------------------------------------------------- when planning

// The index of partition `oid` in its parent's partition descriptor (the
// one the planner expands it from), or -1.
int partition_index(PlannerInfo *root, RelOptInfo *parent, Oid oid) {
    if (root->glob->partition_directory == nullptr)
        return -1;
    // The parent was opened and locked by the planner already.
    Relation r = table_open(root->simple_rte_array[parent->relid]->relid, NoLock);
    PartitionDesc desc = PartitionDirectoryLookup(root->glob->partition_directory, r);
    table_close(r, NoLock);
    for (int i = 0; i < desc->nparts; i++)
        if (desc->oids[i] == oid)
            return i;
    return -1;
}

// The partitions of `parent` that PostgreSQL's own pruning keeps for
// conditions `bounds`: the same code, with the parent's conditions replaced
// by the bounds for the call.
Bitmapset *partitions_within(PlannerInfo *root, RelOptInfo *parent, List *bounds) {
    List *rinfos = NIL;
    ListCell *lc;
    foreach (lc, bounds)
        rinfos = lappend(rinfos, make_simple_restrictinfo(root, static_cast<Expr *>(lfirst(lc))));
    List *conditions = parent->baserestrictinfo;
    parent->baserestrictinfo = rinfos;
    Bitmapset *live = prune_append_rel_partitions(parent);
    parent->baserestrictinfo = conditions;
    return live;
}

void prune_partition(PlannerInfo *root, Oid oid, RelOptInfo *rel) {
    if (rel->reloptkind != RELOPT_OTHER_MEMBER_REL || root->append_rel_array == nullptr)
        return;
    AppendRelInfo *appinfo = root->append_rel_array[rel->relid];
    if (appinfo == nullptr)
        return;
    RelOptInfo *parent = root->simple_rel_array[appinfo->parent_relid];
    if (parent == nullptr || parent->part_scheme == nullptr || parent->nparts <= 0 ||
        parent->baserestrictinfo == NIL || !time_catalog().ready)
        return;
    List *bounds = bound_clauses(root, parent, true);
    if (bounds == NIL)
        return;
    const int index = partition_index(root, parent, oid);
    if (index < 0 || bms_is_member(index, partitions_within(root, parent, bounds)))
        return;
    mark_dummy_rel(rel);
}

#if PG_VERSION_NUM >= 190000
void time_simple_rel(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte) {
    if (prev_build_simple_rel)
        prev_build_simple_rel(root, rel, rte);
    if (rte->rtekind == RTE_RELATION && guc_time_predicates && enable_partition_pruning)
        run_guarded([&] { prune_partition(root, rte->relid, rel); });
}
#else
void time_relation_info(PlannerInfo *root, Oid oid, bool inhparent, RelOptInfo *rel) {
    if (prev_get_relation_info)
        prev_get_relation_info(root, oid, inhparent, rel);
    if (guc_time_predicates && enable_partition_pruning)
        run_guarded([&] { prune_partition(root, oid, rel); });
}
#endif

// ----------------------------------------------- when the executor starts

void add_pruning_bounds(PlannerInfo *root) {
    if (!time_catalog().ready)
        return;
    for (int i = 1; i < root->simple_rel_array_size; i++) {
        RelOptInfo *rel = root->simple_rel_array[i];
        if (rel == nullptr || rel->part_scheme == nullptr || rel->baserestrictinfo == NIL ||
            IS_DUMMY_REL(rel) ||
            (rel->reloptkind != RELOPT_BASEREL && rel->reloptkind != RELOPT_OTHER_MEMBER_REL))
            continue;
        List *bounds = bound_clauses(root, rel, false);
        if (bounds == NIL)
            continue;
        // For pruning only: neither evaluated on a row nor estimated.
        List *added = NIL;
        ListCell *lc;
        foreach (lc, bounds)
            added = lappend(added, make_simple_restrictinfo(root, static_cast<Expr *>(lfirst(lc))));
        rel->baserestrictinfo = list_concat_copy(rel->baserestrictinfo, added);
    }
}

void time_upper_paths(PlannerInfo *root, UpperRelationKind stage, RelOptInfo *input_rel,
                      RelOptInfo *output_rel, void *extra) {
    if (prev_create_upper_paths)
        prev_create_upper_paths(root, stage, input_rel, output_rel, extra);
    if (stage == UPPERREL_FINAL && guc_time_predicates && enable_partition_pruning)
        run_guarded([&] { add_pruning_bounds(root); });
}

}  // namespace

void install_time_pruning_hooks() {
#if PG_VERSION_NUM >= 190000
    prev_build_simple_rel = build_simple_rel_hook;
    build_simple_rel_hook = time_simple_rel;
#else
    prev_get_relation_info = get_relation_info_hook;
    get_relation_info_hook = time_relation_info;
#endif
    prev_create_upper_paths = create_upper_paths_hook;
    create_upper_paths_hook = time_upper_paths;
}

}  // namespace sfpg
