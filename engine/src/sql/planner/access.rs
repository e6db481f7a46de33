//! Access path selection for one FROM item: rowid lookups and ranges, index
//! equality prefixes (with IN lists) followed by a range on the next column,
//! or a full scan; plus the row estimates the join order is chosen by.
//!
//! Estimates: a table has the rows its tree holds now. An equality on the
//! first `k` columns of an index that ANALYZE measured yields the index's
//! average entries per distinct `k`-column prefix (SQLite's `stat1`);
//! without statistics, each equality keeps a tenth of the rows. A full
//! UNIQUE key yields one row; a range keeps a quarter (no histograms); a
//! hash join keeps, per build column, what an analyzed index starting
//! with that column says (or a tenth). [`prefix_rows`] is the one place
//! statistics are read; [`index_access`] (ranking indexes) and
//! [`estimate_rows`] (ordering joins) must agree through it.
//!
//! An index is usable for `col op value` only when comparing in the index's
//! order gives the comparison's answer: same collation, and the affinity
//! conversion the comparison applies leaves the column's stored values
//! unchanged (numeric conversion on a numeric column, text on a text column,
//! none at all). The probe value is converted the way the comparison
//! converts it. Access paths only narrow: the level still evaluates every
//! conjunct, so a path may return extra rows, never miss one; except that
//! an index seek's `column = value` or `expression = value` conjuncts are
//! exact (see `Access::Index::exact`), and the planner drops those.

use std::collections::HashSet;

use super::plan::{expr_key, local_slots, Access, CmpInfo, Expr, FromItem, IndexInfo, Source};
use crate::sql::ast::{BinaryOp, LikeOp};
use crate::sql::catalog::{Catalog, Index, Table};
use crate::sql::functions::literal_prefix;
use crate::sql::value::{Affinity, Collation, Value};

/// A usable comparison of one of the item's columns with a value computable
/// from already bound rows.
#[derive(Clone, Debug)]
struct Term {
    /// What the comparison constrains.
    target: Target,
    kind: TermKind,
    /// The conversion the comparison applies to the value.
    conversion: Option<Affinity>,
    cmp: CmpInfo,
    /// The conjunct's position among the usable ones when the term is the
    /// whole conjunct `target = value` or `target IN (values)` on a column
    /// or an indexed expression (so an index seek on the target enforces
    /// the conjunct: a row it finds equals one of the values); `None`
    /// otherwise. Its key is formatted only if an index's equality prefix
    /// uses the term (`index_access`).
    whole: Option<usize>,
}

/// The left side of a usable comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Target {
    Rowid,
    /// A table column, by number.
    Column(usize),
    /// An index key expression, by its [`expr_key`].
    Expr(String),
}

#[derive(Clone, Debug)]
enum TermKind {
    Eq(Expr),
    In(Vec<Expr>),
    Lower(Expr, bool),
    Upper(Expr, bool),
    /// `column LIKE 'ab%'` or GLOB: the text range from `lo` (included)
    /// to `hi` (excluded, none when the prefix has no successor) holds
    /// every text the pattern can match, and the same bounds as blobs
    /// every blob (see [`like_term`]).
    Prefix {
        lo: Expr,
        hi: Option<Expr>,
    },
}

/// Picks the access path for `items[item]` given the usable conjuncts and
/// which items are bound (the item itself excluded from "computable"),
/// ranking index candidates with `cat`'s statistics.
pub(crate) fn choose_access(
    cat: &Catalog,
    items: &[FromItem],
    item: usize,
    conjuncts: &[&Expr],
    bound: &[bool],
) -> Access {
    let Some((table, terms, keys)) = item_terms(items, item, conjuncts, bound) else {
        return Access::Scan;
    };
    // The outermost level runs once: hashing it would only hold the whole
    // table in memory to look up one constant key. It streams instead,
    // with the terms as filters.
    match best_access(cat, &items[item], table, &terms, &keys, conjuncts) {
        Access::Scan if !outermost(item, bound) => {
            let filters = build_filters(&items[item], conjuncts);
            hash_access(table, &items[item], &terms, filters, None)
        }
        other => other,
    }
}

/// A hash join on the item's equality terms (its rowid included) even
/// where an index or the rowid would serve each probe: the join planner's
/// choice when the probes together want most of a small table
/// ([`super::join`]). The per-probe path it replaces is kept as the
/// fallback, used when the table's rows turn out to pass a quarter of the
/// batch limit.
/// `None` for the outermost level or without an equality term.
pub(crate) fn hash_instead(
    cat: &Catalog,
    items: &[FromItem],
    item: usize,
    conjuncts: &[&Expr],
    bound: &[bool],
) -> Option<Access> {
    let (table, terms, keys) = item_terms(items, item, conjuncts, bound)?;
    if outermost(item, bound) {
        return None;
    }
    if items[item].rows < HASH_MIN_ROWS {
        return None;
    }
    let per_probe = best_access(cat, &items[item], table, &terms, &keys, conjuncts);
    let fallback = (!matches!(per_probe, Access::Scan)).then(|| Box::new(per_probe));
    let filters = build_filters(&items[item], conjuncts);
    match hash_access(table, &items[item], &terms, filters, fallback) {
        hash @ Access::Hash { .. } => Some(hash),
        _ => None,
    }
}

/// Whether `item` is the only bound item: the outermost level, which runs
/// once.
fn outermost(item: usize, bound: &[bool]) -> bool {
    bound.iter().enumerate().all(|(i, &b)| i == item || !b)
}

/// The item's table and its usable terms (comparisons of its columns, rowid
/// or indexed expressions with values computable from the other `bound`
/// items), with the conjuncts' keys; `None` for a source that is not a
/// table.
fn item_terms<'i>(
    items: &'i [FromItem],
    item: usize,
    conjuncts: &[&Expr],
    bound: &[bool],
) -> Option<(&'i Table, Vec<Term>, HashSet<String>)> {
    let Source::Table(table) = &items[item].source else {
        return None;
    };
    let it = &items[item];
    let computable = |e: &Expr| {
        let mut ok = true;
        local_slots(e, &mut |slot| {
            let owner = items
                .iter()
                .position(|x| slot >= x.offset && slot < x.offset + x.width);
            match owner {
                Some(o) if o != item && bound[o] => {}
                _ => ok = false,
            }
        });
        ok
    };
    let has_expr_index = it
        .indexes
        .iter()
        .any(|ix| ix.index.columns.iter().any(|c| c.column.is_none()));
    let column_of = |e: &Expr| -> Option<Target> {
        match e {
            Expr::Column { level: 0, index }
                if *index >= it.offset && *index < it.offset + it.width =>
            {
                let c = index - it.offset;
                if table.is_rowid_slot(c) {
                    Some(Target::Rowid)
                } else {
                    Some(Target::Column(c))
                }
            }
            _ if has_expr_index => {
                let key = expr_key(e);
                let found = it.indexes.iter().any(|ix| {
                    ix.index
                        .columns
                        .iter()
                        .zip(&ix.exprs)
                        .any(|(c, x)| c.column.is_none() && expr_key(x) == key)
                });
                found.then_some(Target::Expr(key))
            }
            _ => None,
        }
    };
    let mut terms = Vec::new();
    for (at, e) in conjuncts.iter().enumerate() {
        collect_terms(e, at, table, &column_of, &computable, &mut terms);
    }
    // Only a partial index's predicate is matched against the conjuncts'
    // keys (`index_access`): formatting keys costs about as much as the
    // rest of planning a point query.
    let keys: HashSet<String> = if it.indexes.iter().any(|ix| !ix.predicate.is_empty()) {
        conjuncts.iter().map(|e| expr_key(e)).collect()
    } else {
        HashSet::new()
    };
    Some((table, terms, keys))
}

type ColumnOf<'a> = dyn Fn(&Expr) -> Option<Target> + 'a;

fn collect_terms(
    e: &Expr,
    at: usize,
    table: &Table,
    column_of: &ColumnOf,
    computable: &dyn Fn(&Expr) -> bool,
    out: &mut Vec<Term>,
) {
    match e {
        Expr::Compare {
            op,
            left,
            right,
            cmp,
        } => {
            let (col, val, op, cmp) = match (column_of(left), column_of(right)) {
                (Some(c), _) if computable(right) => (c, right.as_ref(), *op, *cmp),
                (_, Some(c)) if computable(left) => (c, left.as_ref(), op.flipped(), swap(*cmp)),
                _ => return,
            };
            let Some(conversion) = index_conversion(table, &col, &cmp) else {
                return;
            };
            let kind = match op {
                BinaryOp::Eq => TermKind::Eq(val.clone()),
                BinaryOp::Gt => TermKind::Lower(val.clone(), false),
                BinaryOp::Ge => TermKind::Lower(val.clone(), true),
                BinaryOp::Lt => TermKind::Upper(val.clone(), false),
                BinaryOp::Le => TermKind::Upper(val.clone(), true),
                _ => return,
            };
            out.push(Term {
                target: col.clone(),
                // Read by `index_access` (a rowid equality has its own rule:
                // `join::drop_rowid_eq`).
                whole: (matches!(kind, TermKind::Eq(_)) && !matches!(col, Target::Rowid))
                    .then_some(at),
                kind,
                conversion,
                cmp,
            });
        }
        Expr::Between {
            negated: false,
            expr,
            low,
            high,
            low_cmp,
            high_cmp,
        } => {
            let Some(col) = column_of(expr) else { return };
            if computable(low) {
                if let Some(conversion) = index_conversion(table, &col, low_cmp) {
                    out.push(Term {
                        target: col.clone(),
                        kind: TermKind::Lower((**low).clone(), true),
                        conversion,
                        cmp: *low_cmp,
                        whole: None,
                    });
                }
            }
            if computable(high) {
                if let Some(conversion) = index_conversion(table, &col, high_cmp) {
                    out.push(Term {
                        target: col.clone(),
                        kind: TermKind::Upper((**high).clone(), true),
                        conversion,
                        cmp: *high_cmp,
                        whole: None,
                    });
                }
            }
        }
        Expr::Like {
            op,
            negated: false,
            expr,
            pattern,
            escape,
        } => {
            if let Some(term) = like_term(table, column_of(expr), *op, pattern, escape.as_deref()) {
                out.push(term);
            }
        }
        Expr::InList {
            negated: false,
            expr,
            list,
            cmp,
        } => {
            let Some(col) = column_of(expr) else { return };
            if list.is_empty() || !list.iter().all(computable) {
                return;
            }
            let Some(first) = cmp.first() else { return };
            if cmp.iter().any(|c| c != first) {
                return;
            }
            let Some(conversion) = index_conversion(table, &col, first) else {
                return;
            };
            out.push(Term {
                whole: (!matches!(col, Target::Rowid)).then_some(at),
                target: col,
                kind: TermKind::In(list.clone()),
                conversion,
                cmp: *first,
            });
        }
        _ => {}
    }
}

/// The range term of `column LIKE 'pre%'` (or GLOB 'pre*'), SQLite's
/// LIKE optimization: a pattern (a text literal, escape too) whose literal
/// prefix `pre` is not empty. Every string the pattern matches begins
/// with `pre` (for LIKE, ignoring ASCII case), so:
/// - under GLOB, on an index of the column in BINARY order, its texts lie
///   in [`pre`, successor of `pre`); under LIKE, on one in NOCASE order
///   (which folds ASCII case as LIKE does), in [`PRE`, successor of
///   `pre`) with `PRE` uppercased and `pre` lowercased, which fold to the
///   same range;
/// - LIKE and GLOB read a blob's bytes as text: a matching blob, which
///   sorts after every text, lies in the same bounds taken as blobs
///   (bytewise: every case variant of `pre` lies between `PRE` and `pre`);
/// - a number matches as its text, but sorts before every text: a column
///   that may hold numbers (any affinity but TEXT, which stores numbers as
///   text) qualifies only when no number's text can begin with `pre`'s
///   first character (a digit, a sign, a point, or `Inf`'s I).
///
/// The term only narrows: the level still evaluates the LIKE.
fn like_term(
    table: &Table,
    target: Option<Target>,
    op: LikeOp,
    pattern: &Expr,
    escape: Option<&Expr>,
) -> Option<Term> {
    let Some(Target::Column(c)) = target else {
        return None;
    };
    let glob = match op {
        LikeOp::Like => false,
        LikeOp::Glob => true,
        _ => return None,
    };
    fn text(e: &Expr) -> Option<&str> {
        match e {
            Expr::Literal(Value::Text(s)) => Some(s),
            _ => None,
        }
    }
    let escape = match escape {
        Some(e) => Some(text(e)?),
        None => None,
    };
    let prefix = literal_prefix(glob, text(pattern)?, escape)?;
    let first = prefix.chars().next()?;
    let affinity = table.columns[c].affinity;
    if affinity != Affinity::Text
        && (first.is_ascii_digit() || matches!(first, '-' | '+' | '.' | 'I' | 'i'))
    {
        return None;
    }
    let (lo, hi) = if glob {
        (prefix.to_string(), successor(prefix))
    } else {
        (
            prefix.to_ascii_uppercase(),
            successor(&prefix.to_ascii_lowercase()),
        )
    };
    let literal = |s: String| Expr::Literal(Value::Text(s));
    Some(Term {
        target: Target::Column(c),
        kind: TermKind::Prefix {
            lo: literal(lo),
            hi: hi.map(literal),
        },
        conversion: None,
        cmp: CmpInfo {
            left_affinity: Some(affinity),
            right_affinity: None,
            collation: if glob {
                Collation::Binary
            } else {
                Collation::NoCase
            },
        },
        whole: None,
    })
}

/// The least string above every string that begins with `s`: `s` with its
/// last character replaced by the next one (UTF-8 orders as code points
/// do), dropping last characters that have none; `None` if none has.
fn successor(s: &str) -> Option<String> {
    let mut chars: Vec<char> = s.chars().collect();
    while let Some(last) = chars.pop() {
        let next = (last as u32 + 1..=char::MAX as u32).find_map(char::from_u32);
        if let Some(n) = next {
            chars.push(n);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

fn swap(c: CmpInfo) -> CmpInfo {
    CmpInfo {
        left_affinity: c.right_affinity,
        right_affinity: c.left_affinity,
        collation: c.collation,
    }
}

/// The conversion a comparison applies to its operands (SQLite's rule; see
/// `value::compare_with_affinity`).
fn effective_conversion(cmp: &CmpInfo) -> Option<Affinity> {
    match (cmp.left_affinity, cmp.right_affinity) {
        (Some(x), Some(y)) if x.is_numeric() || y.is_numeric() => Some(Affinity::Numeric),
        (Some(_), Some(_)) => None,
        (Some(x), None) | (None, Some(x)) => Some(x),
        (None, None) => None,
    }
}

/// The conversion a comparison (target on the left) applies to its value,
/// if comparing in stored order is valid: `Some(None)` no conversion,
/// `Some(Some(aff))` convert the probe with `aff`, `None` unusable.
fn index_conversion(table: &Table, target: &Target, cmp: &CmpInfo) -> Option<Option<Affinity>> {
    let col_aff = match target {
        Target::Rowid => Affinity::Integer,
        Target::Column(c) => table.columns[*c].affinity,
        // An index expression's values have no affinity: only an
        // unconverted comparison matches the stored order.
        Target::Expr(_) => {
            return match effective_conversion(cmp) {
                None | Some(Affinity::Blob) => Some(None),
                _ => None,
            }
        }
    };
    match effective_conversion(cmp) {
        None | Some(Affinity::Blob) => Some(None),
        Some(a) if a.is_numeric() && col_aff.is_numeric() => Some(Some(Affinity::Numeric)),
        Some(Affinity::Text) if col_aff == Affinity::Text => Some(Some(Affinity::Text)),
        _ => None,
    }
}

/// `conjuncts` are the usable conjuncts' keys, `exprs` the conjuncts
/// themselves (as [`item_terms`] took them).
fn best_access(
    cat: &Catalog,
    item: &FromItem,
    table: &Table,
    terms: &[Term],
    conjuncts: &HashSet<String>,
    exprs: &[&Expr],
) -> Access {
    let rowid_terms: Vec<&Term> = terms.iter().filter(|t| t.target == Target::Rowid).collect();
    if let Some(t) = rowid_terms
        .iter()
        .find(|t| matches!(t.kind, TermKind::Eq(_) | TermKind::In(_)))
    {
        return match &t.kind {
            TermKind::Eq(v) => Access::RowidEq(vec![v.clone()]),
            TermKind::In(list) => Access::RowidEq(list.clone()),
            _ => Access::Scan,
        };
    }
    let mut best = Access::Scan;
    let mut best_rows = item.rows;
    for info in &item.indexes {
        if let Some((access, rows)) = index_access(cat, info, item, table, terms, conjuncts, exprs)
        {
            if rows < best_rows {
                best = access;
                best_rows = rows;
            }
        }
    }
    if !rowid_terms.is_empty() {
        let (lo, hi, _) = range_of(&rowid_terms);
        if (lo.is_some() || hi.is_some()) && item.rows / 4.0 < best_rows {
            return Access::RowidRange { lo, hi };
        }
    }
    best
}

/// A hash join on every `column = value` term (and `rowid = value`), when
/// no index serves or [`hash_instead`] asks for one; `Scan` without such
/// a term.
fn hash_access(
    table: &Table,
    item: &FromItem,
    terms: &[Term],
    filters: Vec<Expr>,
    fallback: Option<Box<Access>>,
) -> Access {
    if item.rows < HASH_MIN_ROWS {
        return Access::Scan;
    }
    let mut build = Vec::new();
    let mut probe = Vec::new();
    let mut affinities = Vec::new();
    let mut collations = Vec::new();
    // An equality with a constant (`f.tag = 0`) narrows the rows, not the
    // probe: the key holds only the columns that join, when some do (the
    // conjunct is still checked for every candidate, and `filters` may
    // apply it during the build).
    let joins = |v: &Expr| {
        let mut reads = false;
        local_slots(v, &mut |_| reads = true);
        reads || !is_plain(v)
    };
    let any_join = terms
        .iter()
        .any(|t| matches!(&t.kind, TermKind::Eq(v) if joins(v)));
    for t in terms {
        let TermKind::Eq(v) = &t.kind else {
            continue;
        };
        if any_join && !joins(v) {
            continue;
        }
        let (c, affinity, collation) = match t.target {
            // Rows are decoded with their rowid in the alias column and
            // in the hidden one after the columns; rowid equality is
            // numeric.
            Target::Rowid => (
                table.rowid_alias.unwrap_or(table.columns.len()),
                Affinity::Numeric,
                Collation::Binary,
            ),
            Target::Column(c) if t.cmp.collation == table.columns[c].collation => {
                (c, t.conversion.unwrap_or(Affinity::Blob), t.cmp.collation)
            }
            _ => continue,
        };
        if build.contains(&c) {
            continue;
        }
        build.push(c);
        probe.push(v.clone());
        affinities.push(affinity);
        collations.push(collation);
    }
    if build.is_empty() {
        return Access::Scan;
    }
    Access::Hash {
        build,
        probe,
        affinities,
        collations,
        filters,
        fallback,
    }
}

/// The conjuncts a hash build of `item` can apply while it reads the
/// table: those reading only the item's columns, made of operations that
/// cannot fail or depend on anything but the row ([`is_plain`]).
fn build_filters(item: &FromItem, conjuncts: &[&Expr]) -> Vec<Expr> {
    conjuncts
        .iter()
        .filter(|e| {
            let mut own = true;
            let mut reads = false;
            local_slots(e, &mut |slot| {
                reads = true;
                own &= slot >= item.offset && slot < item.offset + item.width;
            });
            reads && own && is_plain(e)
        })
        .map(|e| (*e).clone())
        .collect()
}

/// Whether `e` is built only of this query's columns, literals,
/// parameters and operators that raise no error (comparisons, logic,
/// arithmetic, IS NULL, BETWEEN, IN lists, CAST): evaluating it on a row
/// the plan would otherwise never look at cannot change the statement's
/// outcome.
fn is_plain(e: &Expr) -> bool {
    match e {
        Expr::Literal(_) | Expr::Param(_) => true,
        Expr::Column { level, .. } => *level == 0,
        Expr::Unary(_, a) | Expr::Cast { expr: a, .. } | Expr::IsNull { expr: a, .. } => {
            is_plain(a)
        }
        Expr::Logic { left, right, .. }
        | Expr::Compare { left, right, .. }
        | Expr::Arith { left, right, .. } => is_plain(left) && is_plain(right),
        Expr::Between {
            expr, low, high, ..
        } => is_plain(expr) && is_plain(low) && is_plain(high),
        Expr::InList { expr, list, .. } => is_plain(expr) && list.iter().all(is_plain),
        _ => false,
    }
}

/// Below this many rows a scan is as cheap as building a hash table.
const HASH_MIN_ROWS: f64 = 8.0;

/// A range end: the value and whether it is included.
type RangeEnd = Option<(Expr, bool)>;

/// The range the terms give a key column, and whether it is a LIKE /
/// GLOB prefix's (whose bounds are then also scanned as blobs): a prefix
/// term's two bounds are taken together, before any comparison's.
fn range_of(terms: &[&Term]) -> (RangeEnd, RangeEnd, bool) {
    if let Some((lo, hi)) = terms.iter().find_map(|t| match &t.kind {
        TermKind::Prefix { lo, hi } => Some((lo, hi)),
        _ => None,
    }) {
        return (
            Some((lo.clone(), true)),
            hi.clone().map(|h| (h, false)),
            true,
        );
    }
    let mut lo = None;
    let mut hi = None;
    for t in terms {
        match &t.kind {
            TermKind::Lower(v, inc) if lo.is_none() => lo = Some((v.clone(), *inc)),
            TermKind::Upper(v, inc) if hi.is_none() => hi = Some((v.clone(), *inc)),
            _ => {}
        }
    }
    (lo, hi, false)
}

/// Whether the slots marked in `used` are only what `info`'s keys hold
/// exactly: columns of the index whose stored values the key reproduces
/// (any affinity but BLOB, which keeps 1 and 1.0 apart, and BINARY
/// collation, since the key holds folded text), and the rowid.
pub(crate) fn covers(info: &IndexInfo, used: &[bool], table: &Table) -> bool {
    let n = table.columns.len();
    used.iter().enumerate().filter(|(_, u)| **u).all(|(c, _)| {
        c == n
            || Some(c) == table.rowid_alias
            || info.index.columns.iter().any(|ic| {
                ic.column == Some(c)
                    && ic.collation == Collation::Binary
                    && table.columns[c].affinity != Affinity::Blob
            })
    })
}

/// The best use of an index for these terms and its estimated rows. A
/// partial index is usable only when every conjunct of its predicate is
/// one of the level's conjuncts.
fn index_access(
    cat: &Catalog,
    info: &IndexInfo,
    item: &FromItem,
    table: &Table,
    terms: &[Term],
    conjuncts: &HashSet<String>,
    exprs: &[&Expr],
) -> Option<(Access, f64)> {
    let index = &info.index;
    if !info
        .predicate
        .iter()
        .all(|p| conjuncts.contains(&expr_key(p)))
    {
        return None;
    }
    let mut eq = Vec::new();
    let mut affinities = Vec::new();
    let mut exact = Vec::new();
    let mut lo = None;
    let mut hi = None;
    let mut blobs_too = false;
    for (ic, key_expr) in index.columns.iter().zip(&info.exprs) {
        let target = match ic.column {
            Some(c) => Target::Column(c),
            None => Target::Expr(expr_key(key_expr)),
        };
        let here: Vec<&Term> = terms
            .iter()
            .filter(|t| t.target == target && t.cmp.collation == ic.collation)
            .collect();
        if let Some(t) = here
            .iter()
            .find(|t| matches!(t.kind, TermKind::Eq(_) | TermKind::In(_)))
        {
            let values = match &t.kind {
                TermKind::Eq(v) => vec![v.clone()],
                TermKind::In(list) => list.clone(),
                _ => Vec::new(),
            };
            // A key found satisfies the conjunct (`Access::Index::exact`).
            if let Some(at) = t.whole {
                exact.push(expr_key(exprs[at]));
            }
            eq.push(values);
            affinities.push(t.conversion.unwrap_or(Affinity::Blob));
            continue;
        }
        let (l, h, prefix) = range_of(&here);
        if l.is_some() || h.is_some() {
            lo = l;
            hi = h;
            blobs_too = prefix;
            affinities.push(
                here.first()
                    .and_then(|t| t.conversion)
                    .unwrap_or(Affinity::Blob),
            );
        }
        break;
    }
    if eq.is_empty() && lo.is_none() && hi.is_none() {
        return None;
    }
    let full_unique = index.unique && eq.len() == index.columns.len();
    let fanout: f64 = eq.iter().map(|v| v.len() as f64).product();
    // Not clamped to 1: a longer equality prefix must win even on tiny
    // tables (the estimate only ranks candidates).
    let mut rows = if full_unique {
        fanout * 0.5
    } else if let Some(per_prefix) = prefix_rows(cat, item, index, eq.len()) {
        per_prefix * fanout
    } else {
        item.rows.max(1.0) / 10f64.powi(eq.len() as i32) * fanout
    };
    if lo.is_some() || hi.is_some() {
        rows /= 4.0;
    }
    let covering = covers(info, &item.used, table);
    if covering {
        // Reading the key alone saves a table lookup per row.
        rows *= 0.9;
    }
    let access = Access::Index {
        index: index.clone(),
        eq,
        affinities,
        lo,
        hi,
        blobs_too,
        covering,
        exact,
    };
    Some((access, rows))
}

/// Rows per distinct value of the first `k` key columns of `index`, from
/// ANALYZE's statistics (capped at the table's current rows); `None` when
/// the index was not analyzed (or was empty then) or `k` is 0. Shared by
/// [`index_access`] and [`estimate_rows`], which must agree.
fn prefix_rows(cat: &Catalog, item: &FromItem, index: &Index, k: usize) -> Option<f64> {
    let stats = cat.stats.get(&index.tree)?;
    if stats.rows == 0 || k == 0 {
        return None;
    }
    let avg = *stats.avg.get(k - 1)?;
    Some((avg.max(1) as f64).min(item.rows.max(1.0)))
}

/// Estimated rows one probe of a hash table over `item` yields for
/// equality on the `build` columns: an analyzed full index whose first
/// columns are exactly the build columns gives its average; otherwise each
/// build column keeps the fraction an analyzed full index starting with it
/// says (a tenth when none does).
fn hash_rows(cat: &Catalog, item: &FromItem, build: &[usize]) -> f64 {
    let full = |info: &&IndexInfo| info.index.predicate.is_none();
    let leads_with = |ix: &Index, cols: &[usize]| {
        ix.columns.len() >= cols.len()
            && ix.columns[..cols.len()]
                .iter()
                .all(|c| c.column.is_some_and(|col| cols.contains(&col)))
    };
    let exact = item
        .indexes
        .iter()
        .filter(full)
        .filter(|info| leads_with(&info.index, build))
        .find_map(|info| prefix_rows(cat, item, &info.index, build.len()));
    if let Some(rows) = exact {
        return rows;
    }
    let mut rows = item.rows;
    // Divided once at the end, so an unanalyzed table gets exactly the
    // estimate it always had.
    let mut unknown = 0;
    for c in build {
        let fraction = item
            .indexes
            .iter()
            .filter(full)
            .filter(|info| leads_with(&info.index, std::slice::from_ref(c)))
            .find_map(|info| {
                let per_value = prefix_rows(cat, item, &info.index, 1)?;
                let total = cat.stats.get(&info.index.tree)?.rows as f64;
                Some(per_value / total)
            });
        match fraction {
            Some(f) => rows *= f,
            None => unknown += 1,
        }
    }
    (rows / 10f64.powi(unknown)).max(1.0)
}

/// Estimated rows one probe of this access path yields.
pub(crate) fn estimate_rows(cat: &Catalog, item: &FromItem, access: &Access) -> f64 {
    match access {
        Access::Scan => item.rows.max(1.0),
        Access::RowidEq(v) => v.len() as f64,
        Access::RowidRange { .. } => (item.rows / 4.0).max(1.0),
        Access::Index {
            index, eq, lo, hi, ..
        } => {
            let fanout: f64 = eq.iter().map(|v| v.len() as f64).product();
            let mut rows = if index.unique && eq.len() == index.columns.len() {
                fanout
            } else if let Some(per_prefix) = prefix_rows(cat, item, index, eq.len()) {
                per_prefix * fanout
            } else {
                (item.rows / 10f64.powi(eq.len() as i32)).max(1.0) * fanout
            };
            if lo.is_some() || hi.is_some() {
                rows = (rows / 4.0).max(1.0);
            }
            rows
        }
        Access::Hash { build, .. } => hash_rows(cat, item, build),
    }
}
