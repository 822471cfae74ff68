// Partition pruning from the id bounds that time conditions imply
// (time_conditions.hpp), for tables partitioned by the id.  PostgreSQL
// prunes with conditions on the partition key; a condition on the id's time
// is not one, so without help every partition is opened, locked and
// scanned.  What the condition implies is added where PostgreSQL's own
// pruning reads it, and nothing else changes:
//
// When the planner builds a partitioned table's RelOptInfo, before its
// conditions are distributed and before its partitions are expanded, the
// bounds that are constants (a constant window: computed from the server's
// layout, fixed while the server runs) of the conditions that will restrict
// it are added to its list of conditions (baserestrictinfo): the conditions
// of the query's WHERE and of the inner joins above it, or of the ON of the
// outer join whose nullable side it is (the ones PostgreSQL distributes to
// it).  PostgreSQL's own plan-time pruning (prune_append_rel_partitions,
// when the partitions are expanded) then reads them beside the user's
// conditions, so a partition that cannot hold a matching row is never
// opened or locked, exactly as for the same window written as id bounds.
// The added conditions are taken off again before any partition copies its
// parent's conditions, so no partition evaluates or estimates them: when the
// planner builds a partition that is not partitioned itself, they leave its
// parent's list; for a partition that is partitioned, they are (again) in
// the list it copies, so its own partitions are pruned the same way.
// Whatever is left is taken off when the query level is planned.  The point
// where the RelOptInfo is built is get_relation_info_hook on PostgreSQL 15
// to 18 and build_simple_rel_hook on 19: both run at the end of building a
// relation, before its parent's conditions are copied to it.
//
// Bounds that are not constants when planning (relative to now(), in the
// session's time zone, a parameter of a generic plan, a value of an outer
// query) are added to the partitioned table's own list of conditions once
// its query level is planned (create_upper_paths_hook, UPPERREL_FINAL: all
// paths and estimates made), where the Append or MergeAppend plan built
// afterwards finds them and prunes when the executor starts (or at each
// rescan, for a value of an outer query).  The partitioned table evaluates
// none of its conditions itself (its partitions do), so they only prune.
#include "firewall.hpp"
#include "time_conditions.hpp"
#include "time_predicates.hpp"
#include "time_pruning.hpp"

extern "C" {
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/plancat.h"
}

namespace sfpg {

namespace {

#if PG_VERSION_NUM >= 190000
build_simple_rel_hook_type prev_build_simple_rel = nullptr;
#else
get_relation_info_hook_type prev_get_relation_info = nullptr;
#endif
create_upper_paths_hook_type prev_create_upper_paths = nullptr;

// The location our added conditions carry (an OpExpr's location is a query
// text offset, or -1): how they are told from the user's conditions, also
// once copied to a partition.
constexpr int kAddedLocation = -29;

bool is_added(const RestrictInfo *ri) {
    return IsA(ri->clause, OpExpr) &&
           reinterpret_cast<const OpExpr *>(ri->clause)->location == kAddedLocation;
}

bool has_added(const List *rinfos) {
    const ListCell *lc;
    foreach (lc, rinfos)
        if (is_added(static_cast<const RestrictInfo *>(lfirst(lc))))
            return true;
    return false;
}

void take_off_added(RelOptInfo *rel) {
    if (!has_added(rel->baserestrictinfo))
        return;
    List *kept = NIL;
    ListCell *lc;
    foreach (lc, rel->baserestrictinfo)
        if (!is_added(static_cast<RestrictInfo *>(lfirst(lc))))
            kept = lappend(kept, lfirst(lc));
    rel->baserestrictinfo = kept;
}

// The constant bounds of `conditions` (expressions) on relation relid, as
// added conditions.
List *constant_bounds(PlannerInfo *root, List *conditions, Index relid) {
    List *result = NIL;
    ListCell *lc;
    foreach (lc, conditions) {
        List *bounds = NIL;
        if (!implied_bounds(root, static_cast<Expr *>(lfirst(lc)), relid, true, &bounds))
            continue;
        ListCell *b;
        foreach (b, bounds) {
            const IdBound &bound = *static_cast<IdBound *>(lfirst(b));
            if (!IsA(bound.value, Const))
                continue;
            auto *clause = reinterpret_cast<OpExpr *>(bound_clause(bound));
            clause->location = kAddedLocation;
            result = lappend(result,
                             make_simple_restrictinfo(root, reinterpret_cast<Expr *>(clause)));
        }
    }
    return result;
}

// A join tree node's conditions as a list: the planner has made them an
// implicit-AND list already; anything else is taken as one condition.
List *condition_list(Node *quals) {
    if (quals == nullptr)
        return NIL;
    if (IsA(quals, List))
        return reinterpret_cast<List *>(quals);
    return list_of(quals);
}

// The conditions (implicit-AND lists of expressions, as the planner has
// preprocessed them) that PostgreSQL will distribute to relation relid as
// its own: those of every FromExpr and inner join above it, or, below the
// nullable side of an outer join, only those of that join's ON and below.
// false: relid is not in this part of the join tree.
bool conditions_of(Node *jt, int relid, List *above, List **out) {
    if (jt == nullptr)
        return false;
    if (IsA(jt, RangeTblRef)) {
        if (reinterpret_cast<RangeTblRef *>(jt)->rtindex != relid)
            return false;
        *out = above;
        return true;
    }
    if (IsA(jt, FromExpr)) {
        auto *f = reinterpret_cast<FromExpr *>(jt);
        List *conditions = list_concat_copy(above, condition_list(f->quals));
        ListCell *lc;
        foreach (lc, f->fromlist)
            if (conditions_of(static_cast<Node *>(lfirst(lc)), relid, conditions, out))
                return true;
        return false;
    }
    if (!IsA(jt, JoinExpr))
        return false;
    auto *j = reinterpret_cast<JoinExpr *>(jt);
    List *on = condition_list(j->quals);
    switch (j->jointype) {
    case JOIN_INNER: {
        List *both = list_concat_copy(above, on);
        return conditions_of(j->larg, relid, both, out) ||
               conditions_of(j->rarg, relid, both, out);
    }
    case JOIN_LEFT:
    case JOIN_SEMI:
    case JOIN_ANTI:
        return conditions_of(j->larg, relid, above, out) ||
               conditions_of(j->rarg, relid, on, out);
    case JOIN_RIGHT:
        return conditions_of(j->larg, relid, on, out) ||
               conditions_of(j->rarg, relid, above, out);
    default:  // FULL: no condition restricts either side alone
        return conditions_of(j->larg, relid, NIL, out) ||
               conditions_of(j->rarg, relid, NIL, out);
    }
}

// The parent's constant bounds, added to its list unless they are there.
void add_to_parent(PlannerInfo *root, RelOptInfo *parent) {
    if (has_added(parent->baserestrictinfo))
        return;
    List *conditions = NIL;
    ListCell *lc;
    foreach (lc, parent->baserestrictinfo) {
        auto *ri = static_cast<RestrictInfo *>(lfirst(lc));
        if (!ri->pseudoconstant)
            conditions = lappend(conditions, ri->clause);
    }
    parent->baserestrictinfo = list_concat(parent->baserestrictinfo,
                                           constant_bounds(root, conditions, parent->relid));
}

// Whether every member of appendrel `parent` is a table: each one's
// RelOptInfo is built through the hooks above, so the added conditions are
// taken off the parent before any member that is not partitioned copies
// them.  A member that is a subquery (a UNION ALL branch that is not a
// plain SELECT from a table) is built without them, and would copy them.
bool members_are_tables(PlannerInfo *root, const RelOptInfo *parent) {
    ListCell *lc;
    foreach (lc, root->append_rel_list) {
        const auto *app = static_cast<AppendRelInfo *>(lfirst(lc));
        if (app->parent_relid == parent->relid &&
            root->simple_rte_array[app->child_relid]->rtekind != RTE_RELATION)
            return false;
    }
    return true;
}

// A query with FOR UPDATE or FOR SHARE gets no added condition: a cursor's
// WHERE CURRENT OF needs the row mark of every partition the UPDATE or
// DELETE may visit, and a partition pruned from the cursor's plan has none
// (PostgreSQL's own pruning on id conditions the user wrote does the same).
bool locks_rows(PlannerInfo *root) { return root->parse->rowMarks != NIL; }

void relation_built(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte) {
    const bool partitioned = rel->part_scheme != nullptr && rte->inh;
    if (rel->reloptkind == RELOPT_BASEREL) {
        if (locks_rows(root))
            return;
        List *conditions = NIL;
        if (partitioned &&
            conditions_of(reinterpret_cast<Node *>(root->parse->jointree),
                          static_cast<int>(rel->relid), NIL, &conditions))
            rel->baserestrictinfo = list_concat(rel->baserestrictinfo,
                                                constant_bounds(root, conditions, rel->relid));
        return;
    }
    if (rel->reloptkind != RELOPT_OTHER_MEMBER_REL || root->append_rel_array == nullptr ||
        root->append_rel_array[rel->relid] == nullptr)
        return;
    RelOptInfo *parent = root->simple_rel_array[root->append_rel_array[rel->relid]->parent_relid];
    if (parent == nullptr)
        return;
    // What the member is about to copy from its parent.
    if (partitioned && !locks_rows(root) && members_are_tables(root, parent))
        add_to_parent(root, parent);
    else
        take_off_added(parent);
}

void on_relation_built(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte) {
    if (guc_time_predicates && enable_partition_pruning && rte != nullptr &&
        rte->rtekind == RTE_RELATION)
        run_guarded([&] { relation_built(root, rel, rte); });
}

#if PG_VERSION_NUM >= 190000
void time_build_simple_rel(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte) {
    if (prev_build_simple_rel)
        prev_build_simple_rel(root, rel, rte);
    on_relation_built(root, rel, rte);
}
#else
void time_relation_info(PlannerInfo *root, Oid oid, bool inhparent, RelOptInfo *rel) {
    if (prev_get_relation_info)
        prev_get_relation_info(root, oid, inhparent, rel);
    on_relation_built(root, rel, root->simple_rte_array[rel->relid]);
}
#endif

// ----------------------------------------------- when the executor starts

// The bounds of rel's conditions that are not constants, as clauses.
List *varying_bounds(PlannerInfo *root, RelOptInfo *rel) {
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
            if (!IsA(bound.value, Const))
                result = lappend(result, make_simple_restrictinfo(root, bound_clause(bound)));
        }
    }
    return result;
}

void add_pruning_bounds(PlannerInfo *root) {
    for (int i = 1; i < root->simple_rel_array_size; i++) {
        RelOptInfo *rel = root->simple_rel_array[i];
        if (rel == nullptr)
            continue;
        take_off_added(rel);
        if (rel->part_scheme == nullptr || rel->baserestrictinfo == NIL || IS_DUMMY_REL(rel) ||
            locks_rows(root) ||
            (rel->reloptkind != RELOPT_BASEREL && rel->reloptkind != RELOPT_OTHER_MEMBER_REL))
            continue;
        // For pruning only: neither evaluated on a row nor estimated.
        List *added = varying_bounds(root, rel);
        if (added != NIL)
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
    build_simple_rel_hook = time_build_simple_rel;
#else
    prev_get_relation_info = get_relation_info_hook;
    get_relation_info_hook = time_relation_info;
#endif
    prev_create_upper_paths = create_upper_paths_hook;
    create_upper_paths_hook = time_upper_paths;
}

}  // namespace sfpg
