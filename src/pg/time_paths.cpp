// Index paths from the id bounds that time conditions imply
// (time_conditions.hpp): a set_rel_pathlist_hook, PostgreSQL's way for an
// extension to offer a relation more paths.  Nothing the user wrote is
// changed: the relation's conditions, its row estimate and the paths
// PostgreSQL made stay as they are; the planner picks the extra paths only
// where they are cheaper.
//
// For the conditions of one table (snowflake_timestamp(id) >= x and the
// like), the implied bounds are offered to PostgreSQL's own index path
// builder (create_index_paths) as if they stood beside the user's
// conditions, for the indexes that have the id as a key column: btree,
// BRIN, any index whose operator family has the int8 comparisons.  So every
// kind of path it makes from hand-written bounds is made from them too
// (index, index-only, bitmap, combined with the other conditions' indexes,
// ordered, parallel).  They are visible to it only during that call, in
// each index's list of conditions (indrestrictinfo), and gone afterwards;
// the paths built then hold them as their index conditions, and the plan
// made from such a path evaluates the user's condition on every row the
// index returns (Filter), as for any condition the index cannot answer.
// The index's selectivity is the bounds' own, from the id column's
// statistics; the rows expected of the relation are the ones estimated
// from the user's conditions, as without the extension.
//
// For a join condition (snowflake_timestamp(a.id) >= b.t), the bounds are
// parameterized paths of a's index: a nested loop may look up a's rows of
// each b row's time, with the same cost-based choice against every other
// join method.  Their rows are the join condition's estimate.
#include "firewall.hpp"
#include "time_conditions.hpp"
#include "time_paths.hpp"
#include "time_predicates.hpp"

extern "C" {
#include "optimizer/paths.h"
#include "optimizer/pathnode.h"
#include "optimizer/restrictinfo.h"
}

namespace sfpg {

namespace {

set_rel_pathlist_hook_type prev_set_rel_pathlist = nullptr;

// A table or materialized view that is scanned itself (not a partitioned
// table or an inheritance parent, whose children get their own call), with
// indexes.
bool scanned_with_indexes(RelOptInfo *rel, RangeTblEntry *rte) {
    return (rel->reloptkind == RELOPT_BASEREL || rel->reloptkind == RELOPT_OTHER_MEMBER_REL) &&
           rte->rtekind == RTE_RELATION && !rte->inh &&
           (rte->relkind == RELKIND_RELATION || rte->relkind == RELKIND_MATVIEW) &&
           rte->tablesample == nullptr && rel->indexlist != NIL && !IS_DUMMY_REL(rel);
}

// The left operand of an implied bound's clause: the id expression.
Node *bound_id(RestrictInfo *ri) {
    return static_cast<Node *>(linitial(reinterpret_cast<OpExpr *>(ri->clause)->args));
}

// The key column of the index that the id is, or -1.
int key_column(IndexOptInfo *index, Node *id) {
    for (int col = 0; col < index->nkeycolumns; col++)
        if (match_index_to_operand(id, col, index))
            return col;
    return -1;
}

// The implied bounds of the relation's own conditions, as RestrictInfos.
List *restriction_bounds(PlannerInfo *root, RelOptInfo *rel) {
    List *result = NIL;
    ListCell *lc;
    foreach (lc, rel->baserestrictinfo) {
        auto *ri = static_cast<RestrictInfo *>(lfirst(lc));
        List *bounds = NIL;
        if (ri->pseudoconstant ||
            !implied_bounds(root, ri->clause, rel->relid, true, &bounds))
            continue;
        ListCell *b;
        foreach (b, bounds) {
            Expr *clause = bound_clause(*static_cast<IdBound *>(lfirst(b)));
            result = lappend(result, implied_restrictinfo(root, clause, ri));
        }
    }
    return result;
}

void add_restriction_paths(PlannerInfo *root, RelOptInfo *rel, List *bounds) {
    if (bounds == NIL)
        return;
    const int n = list_length(rel->indexlist);
    auto **saved = static_cast<List **>(palloc(n * sizeof(List *)));
    bool offered = false;
    int i = 0;
    ListCell *lc;
    foreach (lc, rel->indexlist) {
        auto *index = static_cast<IndexOptInfo *>(lfirst(lc));
        saved[i++] = index->indrestrictinfo;
        List *usable = NIL;
        ListCell *b;
        foreach (b, bounds)
            if (key_column(index, bound_id(static_cast<RestrictInfo *>(lfirst(b)))) >= 0)
                usable = lappend(usable, lfirst(b));
        if (usable != NIL) {
            // A new list: the old one may be the relation's own
            // baserestrictinfo, which stays as it is.
            index->indrestrictinfo = list_concat_copy(index->indrestrictinfo, usable);
            offered = true;
        }
    }
    if (offered)
        create_index_paths(root, rel);
    i = 0;
    foreach (lc, rel->indexlist)
        static_cast<IndexOptInfo *>(lfirst(lc))->indrestrictinfo = saved[i++];
}

// ------------------------------------------------------- join conditions

// As PostgreSQL's indxpath.c (check_index_only): every column the scan must
// produce or test is a plain column the index can return.
bool index_only_possible(RelOptInfo *rel, IndexOptInfo *index, List *join_clauses) {
    if (!enable_indexonlyscan)
        return false;
    Bitmapset *used = nullptr;
    pull_varattnos(reinterpret_cast<Node *>(rel->reltarget->exprs), rel->relid, &used);
    ListCell *lc;
    foreach (lc, index->indrestrictinfo)
        pull_varattnos(reinterpret_cast<Node *>(static_cast<RestrictInfo *>(lfirst(lc))->clause),
                       rel->relid, &used);
    foreach (lc, join_clauses)
        pull_varattnos(reinterpret_cast<Node *>(static_cast<RestrictInfo *>(lfirst(lc))->clause),
                       rel->relid, &used);
    Bitmapset *returnable = nullptr;
    for (int i = 0; i < index->ncolumns; i++)
        if (index->indexkeys[i] != 0 && index->canreturn[i])
            returnable = bms_add_member(returnable,
                                        index->indexkeys[i] - FirstLowInvalidHeapAttributeNumber);
    return bms_is_subset(used, returnable);
}

// As PostgreSQL's indxpath.c (get_loop_count, without its semijoin
// refinement): the smallest row estimate of the outer relations.
double loop_count(PlannerInfo *root, Relids outer) {
    double result = 0.0;
    int relid = -1;
    while ((relid = bms_next_member(outer, relid)) >= 0) {
        if (relid >= root->simple_rel_array_size || root->simple_rel_array[relid] == nullptr)
            continue;
        RelOptInfo *r = root->simple_rel_array[relid];
        if (IS_DUMMY_REL(r) || r->rows <= 0)
            continue;
        if (result == 0.0 || r->rows < result)
            result = r->rows;
    }
    return result > 0.0 ? result : 1.0;
}

// The bounds of the join conditions that need the same outer relations.
struct JoinGroup {
    Relids outer;
    List *bounds;      // RestrictInfos of the implied bounds
    List *conditions;  // the user's join conditions they come from
};

// IndexClauses of the bounds that `index` can use, in column order.
List *index_clauses(RelOptInfo *rel, IndexOptInfo *index, List *bounds) {
    List *by_column[INDEX_MAX_KEYS] = {};
    ListCell *lc;
    foreach (lc, bounds) {
        auto *ri = static_cast<RestrictInfo *>(lfirst(lc));
        const int col = key_column(index, bound_id(ri));
        if (col < 0 || !restriction_is_securely_promotable(ri, rel))
            continue;
        IndexClause *ic = makeNode(IndexClause);
        ic->rinfo = ri;
        ic->indexquals = list_of(ri);
        ic->lossy = false;
        ic->indexcol = static_cast<AttrNumber>(col);
        ic->indexcols = NIL;
        by_column[col] = lappend(by_column[col], ic);
    }
    // An access method that needs a condition on its first column.
    if (by_column[0] == NIL && !index->amoptionalkey)
        return NIL;
    List *result = NIL;
    for (int col = 0; col < index->nkeycolumns; col++)
        result = list_concat(result, by_column[col]);
    return result;
}

// Parameterized paths on `index` from a group's bounds (and the bounds of
// the rel's own conditions), as PostgreSQL makes them from join conditions
// on the indexed column: an index scan (index-only where possible) and a
// bitmap heap scan.
void add_join_index_paths(PlannerInfo *root, RelOptInfo *rel, IndexOptInfo *index,
                          const JoinGroup &group, List *restriction) {
    if (index->indpred != NIL && !index->predOK)
        return;
    List *clauses = index_clauses(rel, index, list_concat_copy(group.bounds, restriction));
    bool parameterized = false;
    ListCell *lc;
    foreach (lc, clauses) {
        RestrictInfo *ri = static_cast<IndexClause *>(lfirst(lc))->rinfo;
        parameterized = parameterized || list_member_ptr(group.bounds, ri);
    }
    if (!parameterized)
        return;
    const double loops = loop_count(root, group.outer);
    if (index->amhasgettuple) {
        const bool index_only = index_only_possible(rel, index, group.conditions);
        add_path(rel, reinterpret_cast<Path *>(create_index_path(
                          root, index, clauses, NIL, NIL, NIL, ForwardScanDirection, index_only,
                          group.outer, loops, false)));
    }
    if (index->amhasgetbitmap && enable_bitmapscan) {
        IndexPath *bitmapqual = create_index_path(root, index, clauses, NIL, NIL, NIL,
                                                  ForwardScanDirection, false, group.outer, loops,
                                                  false);
        add_path(rel, reinterpret_cast<Path *>(create_bitmap_heap_path(
                          root, rel, reinterpret_cast<Path *>(bitmapqual), group.outer, loops,
                          0)));
    }
}

void add_join_paths(PlannerInfo *root, RelOptInfo *rel, List *restriction) {
    JoinGroup *groups = nullptr;
    int ngroups = 0;
    ListCell *lc;
    foreach (lc, rel->joininfo) {
        auto *ri = static_cast<RestrictInfo *>(lfirst(lc));
        List *bounds = NIL;
        if (ri->pseudoconstant || !join_clause_is_movable_to(ri, rel) ||
            !implied_bounds(root, ri->clause, rel->relid, true, &bounds))
            continue;
        // As PostgreSQL's own index paths: the condition's relations and
        // the rel's lateral references, less the rel itself.
        Relids outer = bms_del_member(bms_union(ri->clause_relids, rel->lateral_relids),
                                      static_cast<int>(rel->relid));
        if (bms_is_empty(outer))
            continue;
        int g = 0;
        while (g < ngroups && !bms_equal(groups[g].outer, outer))
            g++;
        if (g == ngroups) {
            const size_t size = (ngroups + 1) * sizeof(JoinGroup);
            groups = static_cast<JoinGroup *>(ngroups == 0 ? palloc(size) : repalloc(groups, size));
            groups[g] = JoinGroup{outer, NIL, NIL};
            ngroups++;
        }
        groups[g].conditions = lappend(groups[g].conditions, ri);
        ListCell *b;
        foreach (b, bounds)
            groups[g].bounds = lappend(
                groups[g].bounds,
                implied_restrictinfo(root, bound_clause(*static_cast<IdBound *>(lfirst(b))), ri));
    }
    for (int g = 0; g < ngroups; g++) {
        ListCell *ix;
        foreach (ix, rel->indexlist)
            add_join_index_paths(root, rel, static_cast<IndexOptInfo *>(lfirst(ix)), groups[g],
                                 restriction);
    }
}

void time_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte) {
    if (guc_time_predicates && scanned_with_indexes(rel, rte))
        run_guarded([&] {
            List *restriction = restriction_bounds(root, rel);
            add_restriction_paths(root, rel, restriction);
            add_join_paths(root, rel, restriction);
        });
    if (prev_set_rel_pathlist)
        prev_set_rel_pathlist(root, rel, rti, rte);
}

}  // namespace

void install_time_paths_hook() {
    prev_set_rel_pathlist = set_rel_pathlist_hook;
    set_rel_pathlist_hook = time_rel_pathlist;
}

}  // namespace sfpg
