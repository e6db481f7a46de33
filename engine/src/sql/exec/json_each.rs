//! The rows of the table-valued functions `json_each` and `json_tree`.

use super::eval::Env;
use super::scan::Row;
use super::{row_size, ExecCtx};
use crate::sql::functions::json::{EachScan, EACH_COLUMNS};
use crate::sql::planner::plan::Expr;
use crate::sql::value::Value;
use crate::Result;

impl ExecCtx<'_> {
    /// The walk of `json_each(args)` (`json_tree` when `tree`), its
    /// arguments evaluated against `env`; no argument gives no rows. Its
    /// rows are written by [`json_each_row`] into the item's slots.
    pub(crate) fn json_each_scan(&self, tree: bool, args: &[Expr], env: &Env) -> Result<EachScan> {
        let json = match args.first() {
            Some(json) => self.eval(json, env)?,
            None => Value::Null,
        };
        let path = match args.get(1) {
            Some(p) => Some(self.eval(p, env)?),
            None => None,
        };
        EachScan::new(&json, path.as_ref(), tree)
    }

    /// Every row of `json_each(args)`, each its ten columns (those `used`
    /// says; all without it) then its rowid, charged to the statement: the
    /// rows a RIGHT or FULL join's operand keeps for its second pass.
    pub(crate) fn json_each_rows(
        &self,
        tree: bool,
        args: &[Expr],
        env: &Env,
        used: Option<&[bool]>,
    ) -> Result<Vec<Row>> {
        let mut scan = self.json_each_scan(tree, args, env)?;
        let mut rows = Vec::new();
        let mut n = 0;
        loop {
            let mut row = vec![Value::Null; EACH_COLUMNS + 1];
            if !json_each_row(&mut scan, &mut row, used, n)? {
                return Ok(rows);
            }
            self.charge(row_size(&row))?;
            rows.push(row);
            n += 1;
        }
    }
}

/// Writes `scan`'s next row, number `n`, into `slots` (its ten columns,
/// those `used` says, then its rowid `n`); false when the rows are done.
pub(crate) fn json_each_row(
    scan: &mut EachScan,
    slots: &mut [Value],
    used: Option<&[bool]>,
    n: i64,
) -> Result<bool> {
    let (columns, rowid) = slots.split_at_mut(EACH_COLUMNS);
    if !scan.next_row(columns, used)? {
        return Ok(false);
    }
    rowid[0] = Value::Integer(n);
    Ok(true)
}
