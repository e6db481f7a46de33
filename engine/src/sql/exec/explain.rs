//! EXPLAIN QUERY PLAN: the plan in words, one row per step, in SQLite's
//! wording where the steps correspond (`SCAN t`, `SEARCH t USING INDEX i
//! (a=? AND b>?)`, `SEARCH t USING INTEGER PRIMARY KEY (rowid=?)`, `USE
//! TEMP B-TREE FOR ORDER BY`, `COMPOUND QUERY`, `SCALAR SUBQUERY`...).
//! Rows are (id, parent, notused, detail).

use crate::sql::planner::plan::{Access, Body, Core, Expr, Query, Source, TableFunction};
use crate::sql::value::Value;

struct Out {
    rows: Vec<Vec<Value>>,
    next: i64,
    /// Subqueries are numbered in the order the plan shows them.
    subqueries: usize,
}

impl Out {
    fn push(&mut self, parent: i64, detail: String) -> i64 {
        self.next += 1;
        let id = self.next;
        self.rows.push(vec![
            Value::Integer(id),
            Value::Integer(parent),
            Value::Integer(0),
            Value::Text(detail),
        ]);
        id
    }
}

/// The EXPLAIN QUERY PLAN rows of a query.
pub(crate) fn explain(q: &Query) -> Vec<Vec<Value>> {
    let mut out = Out {
        rows: Vec::new(),
        next: 1,
        subqueries: 0,
    };
    query(&mut out, q, 0);
    out.rows
}

fn query(out: &mut Out, q: &Query, parent: i64) {
    body(out, &q.body, parent);
    if !q.order_by.is_empty() {
        out.push(parent, "USE TEMP B-TREE FOR ORDER BY".into());
    }
}

fn body(out: &mut Out, b: &Body, parent: i64) {
    match b {
        Body::Core(c) => core(out, c, parent),
        Body::Values(rows) => {
            out.push(parent, format!("SCAN {} CONSTANT ROWS", rows.len()));
        }
        Body::Compound {
            op, left, right, ..
        } => {
            let id = out.push(parent, "COMPOUND QUERY".into());
            let l = out.push(id, "LEFT-MOST SUBQUERY".into());
            body(out, left, l);
            let name = match op {
                crate::sql::ast::CompoundOperator::Union => "UNION USING TEMP B-TREE",
                crate::sql::ast::CompoundOperator::UnionAll => "UNION ALL",
                crate::sql::ast::CompoundOperator::Intersect => "INTERSECT USING TEMP B-TREE",
                crate::sql::ast::CompoundOperator::Except => "EXCEPT USING TEMP B-TREE",
            };
            let r = out.push(id, name.into());
            body(out, right, r);
        }
        Body::Recursive { initial, steps, .. } => {
            let id = out.push(parent, "RECURSIVE CTE".into());
            let s = out.push(id, "SETUP".into());
            body(out, initial, s);
            let r = out.push(id, "RECURSIVE STEP".into());
            for step in steps {
                body(out, step, r);
            }
        }
    }
}

fn core(out: &mut Out, c: &Core, parent: i64) {
    for (n, level) in c.from.levels.iter().enumerate() {
        let item = &c.from.items[level.item];
        let detail = match (&item.source, &level.access) {
            (Source::Table(t), access) => {
                let alias = if item.name.eq_ignore_ascii_case(&t.name) {
                    String::new()
                } else {
                    format!(" AS {}", item.name)
                };
                access_text(&t.name, &alias, access, c.from.items[level.item].offset)
            }
            (Source::Query { query: sub }, _) => {
                let id = out.push(parent, format!("MATERIALIZE {}", item.name));
                query(out, &sub.query, id);
                format!("SCAN {}", item.name)
            }
            (Source::CteWorking(_), _) => format!("SCAN {}", item.name),
            // SQLite's plan number for its arguments: for JSON, 1 for the
            // document, 3 with the path too; 0 for a PRAGMA's.
            (Source::Function { function, args }, _) => match function {
                TableFunction::Json { .. } => format!(
                    "SCAN {} VIRTUAL TABLE INDEX {}:",
                    item.name,
                    [0, 1, 3][args.len().min(2)]
                ),
                TableFunction::Pragma { .. } => {
                    format!("SCAN {} VIRTUAL TABLE INDEX 0:", item.name)
                }
                TableFunction::Sequence => format!("SCAN {}", item.name),
            },
        };
        let detail = if n > 0 && matches!(level.access, Access::Hash { .. }) {
            format!("{detail} (HASH JOIN)")
        } else {
            detail
        };
        out.push(parent, detail);
        for e in level.filters.iter().chain(level.on.iter()) {
            subqueries(out, e, parent);
        }
    }
    // A RIGHT / FULL join's second pass: the rows nothing matched.
    for level in &c.from.levels {
        let item = &c.from.items[level.item];
        if item.right_join {
            let id = out.push(parent, format!("RIGHT-JOIN {}", item.name));
            out.push(id, format!("SCAN {}", item.name));
        }
    }
    for e in c.filter.iter().chain(c.output.iter()) {
        subqueries(out, e, parent);
    }
    if let Some(a) = &c.aggregate {
        if !a.group_by.is_empty() {
            out.push(parent, "USE TEMP B-TREE FOR GROUP BY".into());
        }
    }
    if c.distinct {
        out.push(parent, "USE TEMP B-TREE FOR DISTINCT".into());
    }
}

fn access_text(table: &str, alias: &str, access: &Access, _offset: usize) -> String {
    match access {
        Access::Scan | Access::Hash { .. } => format!("SCAN {table}{alias}"),
        Access::RowidEq(v) if v.len() == 1 => {
            format!("SEARCH {table}{alias} USING INTEGER PRIMARY KEY (rowid=?)")
        }
        Access::RowidEq(_) => format!("SEARCH {table}{alias} USING INTEGER PRIMARY KEY (rowid=?)"),
        Access::RowidRange { lo, hi } => {
            let cond = match (lo, hi) {
                (Some(_), Some(_)) => "rowid>? AND rowid<?",
                (Some(_), None) => "rowid>?",
                _ => "rowid<?",
            };
            format!("SEARCH {table}{alias} USING INTEGER PRIMARY KEY ({cond})")
        }
        Access::Index {
            index,
            eq,
            lo,
            hi,
            covering,
            ..
        } => {
            let col = |i: usize| {
                index.columns.get(i).map_or_else(
                    || "?".to_string(),
                    |c| match &c.expr.kind {
                        crate::sql::ast::ExprKind::Column(cr) => cr.column.clone(),
                        _ => "<expr>".to_string(),
                    },
                )
            };
            let mut parts: Vec<String> = (0..eq.len()).map(|i| format!("{}=?", col(i))).collect();
            if lo.is_some() {
                parts.push(format!("{}>?", col(eq.len())));
            }
            if hi.is_some() {
                parts.push(format!("{}<?", col(eq.len())));
            }
            let kind = if *covering { "COVERING INDEX" } else { "INDEX" };
            format!(
                "SEARCH {table}{alias} USING {kind} {} ({})",
                index.name,
                parts.join(" AND ")
            )
        }
    }
}

fn subqueries(out: &mut Out, e: &Expr, parent: i64) {
    match e {
        Expr::Scalar(q) | Expr::Exists(q) | Expr::InQuery { query: q, .. } => {
            let kind = match e {
                Expr::Exists(_) | Expr::InQuery { .. } => "LIST SUBQUERY",
                _ => "SCALAR SUBQUERY",
            };
            let corr = if q.correlated { "CORRELATED " } else { "" };
            out.subqueries += 1;
            let n = out.subqueries;
            let id = out.push(parent, format!("{corr}{kind} {n}"));
            query(out, &q.query, id);
        }
        Expr::Unary(_, a) | Expr::Cast { expr: a, .. } | Expr::IsNull { expr: a, .. } => {
            subqueries(out, a, parent)
        }
        Expr::Logic { left, right, .. }
        | Expr::Compare { left, right, .. }
        | Expr::CompareRows { left, right, .. }
        | Expr::Arith { left, right, .. } => {
            subqueries(out, left, parent);
            subqueries(out, right, parent);
        }
        Expr::Function { args, .. } | Expr::Row(args) => {
            args.iter().for_each(|a| subqueries(out, a, parent))
        }
        _ => {}
    }
}
