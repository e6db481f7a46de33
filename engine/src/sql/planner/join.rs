//! Join planning: the order in which FROM items are bound (one nested-loop
//! level each), the access path of each level, and where each WHERE/ON
//! conjunct is evaluated (as early as the rows it reads are bound).
//!
//! Order: with only inner joins, greedy by estimated rows per probe: at
//! each step the item whose best access path (given the items already
//! bound) yields the fewest rows goes next. The estimates come from
//! `access` (ANALYZE's statistics when the catalog has them), so an
//! analyzed database orders a join by what its indexes actually select.
//! Ties go to the first item in FROM order, except when statistics are in
//! play: then to the better kind of access path, then the item's name, so
//! the written order does not decide the plan ([`pick_next`]). A
//! `CROSS JOIN` or any LEFT JOIN keeps the written order (SQLite keeps the
//! order of LEFT JOIN; we keep the whole FROM order then, a simplification
//! that costs speed, never correctness).
//!
//! Three cost rules beyond row counts, all for one pattern: probes that
//! together fetch most of a table through a non-covering index, one
//! random table lookup per joined row, where one pass over the table
//! reads each page once.
//! - [`stream_big_side`]: a small table read whole probing a bigger one:
//!   the big table streams as the outer level and the small one is hashed.
//! - [`stream_biggest`]: a chain of three or more tables that reaches its
//!   biggest last: the biggest streams first, the others are found by
//!   rowid, the small ones hashed.
//! - [`hash_left_side`]: a LEFT JOIN (its order fixed) whose right side a
//!   full scan of the left would read almost whole: the right side is
//!   hashed, filtered by its own ON conditions.
//!
//! Each hash keeps the path it replaces as its fallback for a build past
//! a quarter of the batch limit.
//!
//! Last, [`drop_exact_conjuncts`]: an index seek enforces its `column =
//! value` and `expression = value` conjuncts exactly; they are dropped
//! from the level's filters, which can let the index cover the item (no
//! row fetched), as SQLite does.

use std::rc::Rc;

use super::access::{choose_access, covers, estimate_rows, hash_instead};
use super::plan::{expr_key, local_slots, Access, Expr, From, FromItem, Level, Source};
use crate::sql::ast::BinaryOp;
use crate::sql::catalog::Catalog;
use crate::{sql_err, Result};

/// One WHERE or ON conjunct, with the FROM items it reads.
#[derive(Clone, Debug)]
pub(crate) struct Conjunct {
    pub expr: Expr,
    /// For an ON conjunct of a LEFT JOIN: the joined item.
    pub on: Option<usize>,
    /// FROM items whose columns it reads (sorted, unique).
    pub items: Vec<usize>,
}

impl Conjunct {
    pub(crate) fn new(expr: Expr, on: Option<usize>, items: &[FromItem]) -> Conjunct {
        let mut refs = Vec::new();
        local_slots(&expr, &mut |slot| {
            if let Some(i) = items
                .iter()
                .position(|it| slot >= it.offset && slot < it.offset + it.width)
            {
                refs.push(i);
            }
        });
        refs.sort_unstable();
        refs.dedup();
        Conjunct {
            expr,
            on,
            items: refs,
        }
    }
}

/// Plans a FROM clause. Returns the plan and the conjuncts that read no
/// FROM item (evaluated once, before the join).
pub(crate) fn plan_from(
    catalog: &Catalog,
    items: Vec<FromItem>,
    conjuncts: Vec<Conjunct>,
    width: usize,
) -> Result<(From, Vec<Expr>)> {
    let mut constant = Vec::new();
    let mut pending = Vec::new();
    for c in conjuncts {
        if c.items.is_empty() && c.on.is_none() {
            constant.push(c.expr);
        } else {
            pending.push(c);
        }
    }
    let fixed_order = items.iter().any(|i| i.left_join || i.right_join);
    let n = items.len();
    let needs = function_needs(&items)?;
    let (order, mut hashed) = if needs.iter().any(|d| !d.is_empty()) {
        (function_order(&items, &needs, fixed_order)?, Vec::new())
    } else if fixed_order {
        ((0..n).collect(), Vec::new())
    } else {
        join_order(catalog, &items, &pending)
    };
    let mut bound = vec![false; n];
    let mut levels = Vec::with_capacity(n);
    for &next in &order {
        bound[next] = true;
        let (on, filters): (Vec<Conjunct>, Vec<Conjunct>) = {
            let mut here = Vec::new();
            let mut rest = Vec::new();
            for c in pending.drain(..) {
                if c.items.iter().all(|&i| bound[i]) && c.on.is_none_or(|j| bound[j]) {
                    here.push(c);
                } else {
                    rest.push(c);
                }
            }
            pending = rest;
            here.into_iter().partition(|c| c.on == Some(next))
        };
        // An outer join's operand is found by its ON conditions alone:
        // its candidates are every row that can match (a RIGHT join counts
        // them as matched), and WHERE filters them afterwards.
        let outer = items[next].left_join || items[next].right_join;
        let usable: Vec<&Expr> = if outer {
            on.iter().map(|c| &c.expr).collect()
        } else {
            filters.iter().map(|c| &c.expr).collect()
        };
        let access = match hashed.iter().position(|(h, _)| *h == next) {
            Some(i) => hashed.swap_remove(i).1,
            None => outer
                .then(|| hash_left_side(catalog, &items, next, &usable, &bound, &levels))
                .flatten()
                .unwrap_or_else(|| choose_access(catalog, &items, next, &usable, &bound)),
        };
        let (on_exprs, mut filter_exprs): (Vec<Expr>, Vec<Expr>) = (
            on.into_iter().map(|c| c.expr).collect(),
            filters.into_iter().map(|c| c.expr).collect(),
        );
        if !outer {
            // An ON conjunct of an inner join is an ordinary filter.
            filter_exprs.extend(on_exprs.iter().cloned());
            drop_rowid_eq(&items[next], &access, &mut filter_exprs);
            levels.push(Level {
                item: next,
                access,
                on: Vec::new(),
                filters: filter_exprs,
            });
        } else {
            levels.push(Level {
                item: next,
                access,
                on: on_exprs,
                filters: filter_exprs,
            });
        }
    }
    // Conjuncts left over (an ON naming a later item): evaluate at the end.
    if let Some(last) = levels.last_mut() {
        last.filters.extend(pending.into_iter().map(|c| c.expr));
    } else {
        constant.extend(pending.into_iter().map(|c| c.expr));
    }
    let mut items = items;
    for l in 0..levels.len() {
        drop_exact_conjuncts(&mut items, &mut levels, l);
    }
    Ok((
        From {
            items,
            levels,
            width,
        },
        constant,
    ))
}

/// The order of an inner join: greedy by [`pick_next`], then a hash join
/// builds on the smaller input: when the outermost item is scanned and the
/// next one would be hashed although it has more rows, the two change
/// places (the big item streams as the outer level; the small one is
/// hashed, or found through its index or rowid, per outer row). Then
/// [`stream_big_side`] may swap them too, or [`stream_biggest`] reorder
/// a chain, naming the items to hash and their accesses.
fn join_order(
    cat: &Catalog,
    items: &[FromItem],
    conjuncts: &[Conjunct],
) -> (Vec<usize>, Vec<(usize, Access)>) {
    let n = items.len();
    let mut bound = vec![false; n];
    let mut order = Vec::with_capacity(n);
    for _ in 0..n {
        let next = pick_next(cat, items, conjuncts, &bound);
        bound[next] = true;
        order.push(next);
    }
    if n >= 2 {
        let (first, second) = (order[0], order[1]);
        let mut trial = vec![false; n];
        trial[first] = true;
        let first_access =
            choose_access(cat, items, first, &usable(conjuncts, first, &trial), &trial);
        trial[second] = true;
        let second_access = choose_access(
            cat,
            items,
            second,
            &usable(conjuncts, second, &trial),
            &trial,
        );
        if matches!(first_access, Access::Scan)
            && matches!(second_access, Access::Hash { .. })
            && items[second].rows > items[first].rows
        {
            order.swap(0, 1);
        }
    }
    if let Some(streamed) = stream_biggest(cat, items, conjuncts, &order) {
        return streamed;
    }
    let hashed = stream_big_side(cat, items, conjuncts, &mut order);
    (order, hashed.into_iter().collect())
}

/// For each item, the other items its table-valued function's arguments
/// read (empty for other items).
fn function_needs(items: &[FromItem]) -> Result<Vec<Vec<usize>>> {
    let mut needs = vec![Vec::new(); items.len()];
    for (i, item) in items.iter().enumerate() {
        let Source::Function { args, function } = &item.source else {
            continue;
        };
        let f = function.name();
        let mut slots = Vec::new();
        args.iter()
            .for_each(|a| local_slots(a, &mut |s| slots.push(s)));
        for s in slots {
            let Some(j) = items
                .iter()
                .position(|it| s >= it.offset && s < it.offset + it.width)
            else {
                continue;
            };
            if j == i {
                return Err(sql_err!(
                    "the arguments of {f}() {} read its own columns",
                    item.name
                ));
            }
            if !needs[i].contains(&j) {
                needs[i].push(j);
            }
        }
    }
    Ok(needs)
}

/// The join order of a FROM clause whose table-valued functions read other
/// items: FROM order, each such function moved after the items it reads
/// (an outer join's operands stay in FROM order: a function must come
/// after what it reads there, and cannot be a RIGHT or FULL join's right
/// operand).
fn function_order(items: &[FromItem], needs: &[Vec<usize>], fixed: bool) -> Result<Vec<usize>> {
    let n = items.len();
    if fixed {
        for (i, need) in needs.iter().enumerate() {
            if need.iter().any(|&j| j > i) {
                return Err(sql_err!(
                    "table-valued function {} reads a table to its right in an outer join",
                    items[i].name
                ));
            }
            if items[i].right_join && !need.is_empty() {
                return Err(sql_err!(
                    "table-valued function {} reads a table on its left: it cannot be a RIGHT or FULL join's right operand",
                    items[i].name
                ));
            }
        }
        return Ok((0..n).collect());
    }
    let mut placed = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        let next = (0..n)
            .find(|&i| !placed[i] && needs[i].iter().all(|&j| placed[j]))
            .ok_or_else(|| sql_err!("circular reference among table-valued functions"))?;
        placed[next] = true;
        order.push(next);
    }
    Ok(order)
}

/// A chain of three or more tables joined only by equalities, where the
/// greedy order scans a small table whole and reaches the biggest one
/// last, through a non-covering index: every row of the biggest table is
/// then fetched by one random table lookup (J4: `s` scanned, `f` by its
/// index, `u` by `u_f` then by rowid). When, with the biggest table
/// scanned first, every other table is reached by its rowid, that order
/// reads the big table once in sequence and makes the lookups rowid
/// descents (no index range per row); a table small enough to hash
/// (a quarter or less of the big table's rows, its rows expected to fit
/// [`HASH_BUILD_MAX_BYTES`]) is hashed instead, with its rowid as the
/// run-time fallback. Taken only when no conjunct reads a single table
/// (nothing narrows the greedy order's reads) and the greedy order's
/// first level is a scan. Returns the new order and the hashed items.
#[allow(clippy::type_complexity)]
fn stream_biggest(
    cat: &Catalog,
    items: &[FromItem],
    conjuncts: &[Conjunct],
    order: &[usize],
) -> Option<(Vec<usize>, Vec<(usize, Access)>)> {
    let n = items.len();
    if n < 3
        || conjuncts
            .iter()
            .any(|c| c.on.is_some() || c.items.len() != 2)
    {
        return None;
    }
    let (&first, &last) = (order.first()?, order.last()?);
    let mut only = vec![false; n];
    only[first] = true;
    if !matches!(
        choose_access(cat, items, first, &usable(conjuncts, first, &only), &only),
        Access::Scan
    ) {
        return None;
    }
    let biggest = (0..n).max_by(|&a, &b| items[a].rows.total_cmp(&items[b].rows))?;
    let all = vec![true; n];
    if biggest != last
        || !fetches_rows(&choose_access(
            cat,
            items,
            last,
            &usable(conjuncts, last, &all),
            &all,
        ))
    {
        return None;
    }
    let mut bound = vec![false; n];
    bound[last] = true;
    let mut streamed = vec![last];
    let mut hashed = Vec::new();
    while streamed.len() < n {
        let next = pick_next(cat, items, conjuncts, &bound);
        bound[next] = true;
        let usable = usable(conjuncts, next, &bound);
        let access = choose_access(cat, items, next, &usable, &bound);
        if !matches!(access, Access::RowidEq(ref v) if v.len() == 1) {
            return None;
        }
        let it = &items[next];
        if it.rows * 4.0 <= items[last].rows && build_fits(it.rows, used_columns(it)) {
            if let Some(hash) = hash_instead(cat, items, next, &usable, &bound) {
                hashed.push((next, hash));
            }
        }
        streamed.push(next);
    }
    Some((streamed, hashed))
}

/// Largest estimated size of the rows a hash build keeps, for the three
/// stream/hash rules of the module docs ([`build_fits`]): a quarter of the
/// default batch limit (past a quarter of a smaller limit the build falls
/// back to the per-probe path at run time).
const HASH_BUILD_MAX_BYTES: f64 = 4.0 * 1024.0 * 1024.0;

/// Estimated bytes per value of a materialized row.
const VALUE_BYTES: f64 = 40.0;

/// When the outermost item is read whole (no conjunct of its own) and the
/// next one is a bigger table fetched through a non-covering index, the
/// probes together fetch most of the big table in random order, one table
/// lookup per row. Streaming the big table instead (one sequential pass)
/// and hashing the small one (one pass, then a hash probe per row) reads
/// each page once. The swap is made when the probes are expected to fetch
/// at least a quarter of the big table, the small one has at least 1/64
/// of its rows (so a few probes of a huge table keep their index), and
/// the small table's rows fit [`HASH_BUILD_MAX_BYTES`]. Returns the item
/// to hash and its hash access (built with the conjuncts [`plan_from`]
/// gives the second level: with no LEFT JOIN, those joining it to the
/// first).
fn stream_big_side(
    cat: &Catalog,
    items: &[FromItem],
    conjuncts: &[Conjunct],
    order: &mut [usize],
) -> Option<(usize, Access)> {
    let (small, big) = (*order.first()?, *order.get(1)?);
    let n = items.len();
    let mut only_small = vec![false; n];
    only_small[small] = true;
    if !usable(conjuncts, small, &only_small).is_empty() {
        return None;
    }
    let mut both = only_small;
    both[big] = true;
    let access = choose_access(cat, items, big, &usable(conjuncts, big, &both), &both);
    if !fetches_rows(&access) {
        return None;
    }
    let (s, b) = (&items[small], &items[big]);
    let fetched = s.rows * estimate_rows(cat, b, &access);

    if b.rows <= s.rows
        || s.rows * 64.0 < b.rows
        || fetched < b.rows / 4.0
        || !build_fits(s.rows, s.width)
    {
        return None;
    }
    let mut only_big = vec![false; n];
    only_big[big] = true;
    let mut trial = only_big;
    trial[small] = true;
    let hash = hash_instead(cat, items, small, &usable(conjuncts, small, &trial), &trial)?;
    order.swap(0, 1);
    Some((small, hash))
}

/// A LEFT (or RIGHT / FULL) JOIN's right side that a full scan of the left side would probe
/// through a non-covering index: when the probes together are expected to
/// fetch at least a quarter of the right table, one random table lookup
/// per fetched row loses to one pass that hashes the right side's rows
/// passing its own ON conditions (`f.tag = 0`), if those are expected to
/// fit [`HASH_BUILD_MAX_BYTES`] (past a quarter of the batch limit at run
/// time, the index path is used instead). The outer join is unchanged:
/// the level still checks every ON conjunct of each candidate and adds
/// the NULL row when none passes, and a key's rows come in table (rowid)
/// order, as the index gives them.
fn hash_left_side(
    cat: &Catalog,
    items: &[FromItem],
    item: usize,
    usable: &[&Expr],
    bound: &[bool],
    levels: &[Level],
) -> Option<Access> {
    let [outer] = levels else {
        return None;
    };
    if !matches!(outer.access, Access::Scan) || !outer.filters.is_empty() {
        return None;
    }
    let access = choose_access(cat, items, item, usable, bound);
    if !fetches_rows(&access) {
        return None;
    }
    let right = &items[item];
    let fetched = items[outer.item].rows * estimate_rows(cat, right, &access);
    if fetched < right.rows / 4.0 {
        return None;
    }
    let hash = hash_instead(cat, items, item, usable, bound)?;
    let Access::Hash { filters, .. } = &hash else {
        return None;
    };
    // Each build filter is guessed to keep a tenth of the rows, as an
    // equality on a column without statistics is.
    let kept = (right.rows * 0.1f64.powi(filters.len() as i32)).max(1.0);
    build_fits(kept, used_columns(right)).then_some(hash)
}

/// Drops from an inner join level's filters the conjunct `rowid = v` (or
/// `v = rowid`) that its `Access::RowidEq([v])` enforces exactly: the
/// lookup converts `v` as that comparison does (numeric affinity, the
/// rowid's affinity being INTEGER), and finds the one row whose rowid
/// equals it, or none; the comparison holds for every row found. SQLite
/// does not test such a term again either, and `v` is evaluated once per
/// lookup instead of twice.
fn drop_rowid_eq(item: &FromItem, access: &Access, filters: &mut Vec<Expr>) {
    let (Access::RowidEq(values), Source::Table(table)) = (access, &item.source) else {
        return;
    };
    let [value] = values.as_slice() else { return };
    let is_rowid = |e: &Expr| match e {
        Expr::Column { level: 0, index } if *index >= item.offset => {
            table.is_rowid_slot(index - item.offset)
        }
        _ => false,
    };
    let mut key = None;
    let mut same_value = |e: &Expr| *key.get_or_insert_with(|| expr_key(value)) == expr_key(e);
    if let Some(at) = filters.iter().position(|f| match f {
        Expr::Compare {
            op: BinaryOp::Eq,
            left,
            right,
            ..
        } => (is_rowid(left) && same_value(right)) || (is_rowid(right) && same_value(left)),
        _ => false,
    }) {
        filters.remove(at);
    }
}

/// Drops from level `l`'s filters the conjuncts its index seek enforces
/// exactly (`Access::Index::exact`: `b = ?` on an index of `b`, `lower(e)
/// = ?` on one of `lower(e)`): every row the seek finds satisfies them, so
/// the level no longer evaluates them per row, as SQLite does not. Then,
/// when no other expression of the query reads the columns they read, the
/// key alone answers and no row is fetched (the index covers the item).
/// Only an inner join's filters are dropped: a LEFT JOIN's ON conjuncts
/// decide its NULL row.
fn drop_exact_conjuncts(items: &mut [FromItem], levels: &mut [Level], l: usize) {
    let item = levels[l].item;
    let Access::Index {
        index,
        covering,
        exact,
        ..
    } = &levels[l].access
    else {
        return;
    };
    let Source::Table(table) = &items[item].source else {
        return;
    };
    if exact.is_empty() || items[item].left_join || items[item].right_join {
        return;
    }
    let kept: Vec<Expr> = levels[l]
        .filters
        .iter()
        .filter(|f| !exact.contains(&expr_key(f)))
        .cloned()
        .collect();
    if kept.len() == levels[l].filters.len() {
        return;
    }
    let (index, covering) = (Rc::clone(index), *covering);
    levels[l].filters = kept;
    if covering {
        return;
    }
    // What the query still reads of the item: outside the conjuncts, in
    // every conjunct that stays, and in the levels' access paths (`c.id =
    // b.cid` left c's filters for its rowid lookup, which reads b.cid).
    let (off, w) = (items[item].offset, items[item].width);
    let mut used = items[item].used_outside.clone();
    let mut mark = |e: &Expr| {
        local_slots(e, &mut |s| {
            if s >= off && s < off + w {
                used[s - off] = true;
            }
        })
    };
    for level in levels.iter() {
        level.filters.iter().chain(&level.on).for_each(&mut mark);
        level.access.for_each_expr(&mut mark);
    }
    let covers_now = items[item]
        .indexes
        .iter()
        .find(|info| Rc::ptr_eq(&info.index, &index))
        .is_some_and(|info| covers(info, &used, table));
    if !covers_now {
        return;
    }
    items[item].used = used;
    if let Access::Index { covering, .. } = &mut levels[l].access {
        *covering = true;
    }
}

/// Whether an access path fetches each row it finds from the table by
/// rowid (a non-covering index): the per-row lookup the stream/hash rules
/// trade for one pass.
fn fetches_rows(access: &Access) -> bool {
    matches!(
        access,
        Access::Index {
            covering: false,
            ..
        }
    )
}

/// Whether a hash build of `rows` rows of `columns` values each is
/// expected to fit [`HASH_BUILD_MAX_BYTES`].
fn build_fits(rows: f64, columns: usize) -> bool {
    rows * columns as f64 * VALUE_BYTES <= HASH_BUILD_MAX_BYTES
}

/// How many of the item's columns the query reads (at least one).
fn used_columns(item: &FromItem) -> usize {
    item.used.iter().filter(|u| **u).count().max(1)
}

/// The conjuncts usable by `item`'s access path once the `bound` items
/// (including `item`) are bound.
fn usable<'c>(conjuncts: &'c [Conjunct], item: usize, bound: &[bool]) -> Vec<&'c Expr> {
    conjuncts
        .iter()
        .filter(|c| c.on.is_none() && c.items.contains(&item) && c.items.iter().all(|&j| bound[j]))
        .map(|c| &c.expr)
        .collect()
}

/// The unbound item with the cheapest access path given `bound`.
///
/// Ties: without statistics the first in FROM order wins (the plans of
/// an unanalyzed database stay what they always were). ANALYZE's
/// averages are whole numbers, so with statistics ties are common (one
/// row by rowid against one row per key of an analyzed index); then the
/// kind of access path decides ([`access_rank`]), then the item's name,
/// so the FROM order never does.
fn pick_next(cat: &Catalog, items: &[FromItem], pending: &[Conjunct], bound: &[bool]) -> usize {
    let analyzed = items.iter().any(|it| has_stats(cat, it));
    let mut best: Option<(f64, usize)> = None;
    let mut best_rank = 0;
    for i in 0..items.len() {
        if bound[i] {
            continue;
        }
        let mut trial = bound.to_vec();
        trial[i] = true;
        let usable = usable(pending, i, &trial);
        let access = choose_access(cat, items, i, &usable, &trial);
        let mut cost = estimate_rows(cat, &items[i], &access);
        // Prefer items constrained by something already bound.
        if matches!(access, Access::Scan) && !usable.is_empty() {
            cost *= 0.5;
        }
        let rank = access_rank(&access);
        let better = match best {
            None => true,
            Some((c, _)) if cost != c || !analyzed => cost < c,
            Some((_, b)) => (rank, &items[i].name) < (best_rank, &items[b].name),
        };
        if better {
            best = Some((cost, i));
            best_rank = rank;
        }
    }
    best.map_or(0, |(_, i)| i)
}

/// True when ANALYZE measured the item's table or one of its indexes.
fn has_stats(cat: &Catalog, item: &FromItem) -> bool {
    let Source::Table(t) = &item.source else {
        return false;
    };
    cat.stats.contains_key(&t.tree)
        || item
            .indexes
            .iter()
            .any(|ix| cat.stats.contains_key(&ix.index.tree))
}

/// Preference among access paths of equal estimated rows (lower first):
/// a rowid lookup, a full UNIQUE key, a covering index, another index, a
/// rowid range, a hash table, a scan.
fn access_rank(access: &Access) -> u8 {
    match access {
        Access::RowidEq(_) => 0,
        Access::Index { index, eq, .. } if index.unique && eq.len() == index.columns.len() => 1,
        Access::Index { covering: true, .. } => 2,
        Access::Index { .. } => 3,
        Access::RowidRange { .. } => 4,
        Access::Hash { .. } => 5,
        Access::Scan => 6,
    }
}
