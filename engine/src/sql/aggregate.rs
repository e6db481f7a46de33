//! Aggregate accumulators with SQLite's semantics (func.c: `sumStep`,
//! `countStep`, `minmaxStep`, `groupConcatStep` and their finalizers).
//!
//! The executor resolves a name with [`lookup`] (which also validates the
//! argument count and DISTINCT), makes one [`Accumulator`] per group, feeds
//! it each row's evaluated arguments with [`Accumulator::step`], and reads
//! the result with [`Accumulator::finish`] (or [`Accumulator::value`] for a
//! window frame, which does not consume it; [`Accumulator::inverse`] removes
//! a row for sliding frames where [`Accumulator::supports_inverse`]).
//!
//! Semantics worth knowing:
//! - `sum` is exact in i64 until a non-integer arrives, then continues in
//!   f64 with Kahan-Babuska-Neumaier compensation; an i64 overflow is the
//!   error "integer overflow" unless a real input followed it. No rows or
//!   only NULLs: NULL. `total` is the same sum, always real, 0.0 when empty.
//!   `avg` is that sum over the count, always real. Text and blobs are read
//!   as numbers (`'12'` counts as an integer, `'abc'` as 0.0).
//! - `min`/`max` ignore NULLs and compare with the total order under the
//!   argument's collation; on ties the first value seen stays.
//! - `group_concat(x[, sep])` / `string_agg(x, sep)`: texts of the non-NULL
//!   values joined by sep (default ","); the separator before each value is
//!   the one given on that value's row. NULL when there were none.
//! - `json_group_array(x)` / `json_group_object(label, x)`: the values
//!   (and labels) as one JSON array (object), each value embedded as JSON
//!   when it carries SQLite's JSON subtype, else converted; the state is
//!   [`crate::sql::functions::json`]'s.
//! - DISTINCT (one argument only) skips values equal (by the total order
//!   under the collation, so 1 and 1.0 are the same) to one already seen;
//!   NULL is one such value (`json_group_array(DISTINCT x)` keeps one null).
//! - An aggregate's ORDER BY (`group_concat(x ORDER BY y)`) is the
//!   executor's: it holds the rows and steps them in order at the end
//!   ([`crate::sql::exec::aggregate`]).

use std::collections::HashSet;

use crate::sql::functions::json;
use crate::sql::keycode::{encode_key, KeyColumn};
use crate::sql::value::{compare, numeric_affinity, Collation, Value};
use crate::{sql_err, Result};

/// Which aggregate function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum AggregateKind {
    /// `count(*)`: every row.
    CountStar,
    /// `count(x)`: rows where x is not NULL.
    Count,
    Sum,
    Total,
    Avg,
    Min,
    Max,
    /// `group_concat(x[, sep])` and `string_agg(x, sep)`.
    GroupConcat,
    /// `json_group_array(x)`, or with `true` `jsonb_group_array(x)`.
    JsonGroupArray(bool),
    /// `json_group_object(label, x)`, or with `true` `jsonb_group_object`.
    JsonGroupObject(bool),
}

/// Resolves an aggregate call. `Ok(None)` when `name` is not an aggregate
/// with this many arguments (for `min`/`max` with two or more arguments,
/// look in [`crate::sql::functions`]); an error for a known aggregate
/// called wrongly. `count(*)` is `args = 0`.
pub(crate) fn lookup(name: &str, args: usize, distinct: bool) -> Result<Option<AggregateKind>> {
    use AggregateKind::*;
    let kind = match (name.to_ascii_lowercase().as_str(), args) {
        ("count", 0) => CountStar,
        ("count", 1) => Count,
        ("sum", 1) => Sum,
        ("total", 1) => Total,
        ("avg", 1) => Avg,
        ("min", 1) => Min,
        ("max", 1) => Max,
        ("group_concat", 1 | 2) | ("string_agg", 2) => GroupConcat,
        ("json_group_array", 1) => JsonGroupArray(false),
        ("json_group_object", 2) => JsonGroupObject(false),
        ("jsonb_group_array", 1) => JsonGroupArray(true),
        ("jsonb_group_object", 2) => JsonGroupObject(true),
        ("min" | "max", _) if args >= 2 => return Ok(None),
        (
            "count" | "sum" | "total" | "avg" | "min" | "max" | "group_concat" | "string_agg"
            | "json_group_array" | "json_group_object" | "jsonb_group_array" | "jsonb_group_object",
            _,
        ) => {
            return Err(sql_err!(
                "wrong number of arguments to function {}()",
                name.to_ascii_lowercase()
            ))
        }
        _ => return Ok(None),
    };
    if distinct && args != 1 {
        return Err(sql_err!(
            "DISTINCT aggregates must have exactly one argument"
        ));
    }
    Ok(Some(kind))
}

/// The running sum shared by sum, total and avg (SQLite's `SumCtx`).
#[derive(Clone, Debug, Default)]
struct Sum {
    real: f64,
    /// Kahan-Babuska-Neumaier error term.
    error: f64,
    int: i64,
    count: i64,
    /// Some input was not an integer (or the integer sum overflowed).
    approx: bool,
    overflow: bool,
}

impl Sum {
    fn kbn_step(&mut self, r: f64) {
        let s = self.real;
        let t = s + r;
        if s.abs() > r.abs() {
            self.error += (s - t) + r;
        } else {
            self.error += (r - t) + s;
        }
        self.real = t;
    }

    /// Adds an integer in two parts when it is too big for a double to hold.
    fn kbn_step_int(&mut self, i: i64) {
        if !(-4_503_599_627_370_495..=4_503_599_627_370_495).contains(&i) {
            let small = i % 16384;
            self.kbn_step((i - small) as f64);
            self.kbn_step(small as f64);
        } else {
            self.kbn_step(i as f64);
        }
    }

    fn kbn_init(&mut self, i: i64) {
        if !(-4_503_599_627_370_495..=4_503_599_627_370_495).contains(&i) {
            let small = i % 16384;
            self.real = (i - small) as f64;
            self.error = small as f64;
        } else {
            self.real = i as f64;
            self.error = 0.0;
        }
    }

    /// `sqlite3_value_numeric_type` then `sumStep`.
    fn step(&mut self, v: &Value) {
        // Numbers and NULL are read in place; only text and blobs convert.
        let converted;
        let v = match v {
            Value::Text(_) | Value::Blob(_) => {
                converted = numeric_affinity(v.clone(), false);
                &converted
            }
            _ => v,
        };
        match *v {
            Value::Null => {}
            Value::Integer(i) => {
                self.count += 1;
                if self.approx {
                    self.kbn_step_int(i);
                } else if let Some(sum) = self.int.checked_add(i) {
                    self.int = sum;
                } else {
                    self.overflow = true;
                    self.kbn_init(self.int);
                    self.approx = true;
                    self.kbn_step_int(i);
                }
            }
            ref other => {
                self.count += 1;
                if !self.approx {
                    self.kbn_init(self.int);
                    self.approx = true;
                } else {
                    self.overflow = false;
                }
                self.kbn_step(other.to_f64());
            }
        }
    }

    /// `sumInverse`.
    fn inverse(&mut self, v: &Value) {
        let v = numeric_affinity(v.clone(), false);
        match v {
            Value::Null => {}
            Value::Integer(i) => {
                self.count -= 1;
                if !self.approx {
                    self.int = self.int.wrapping_sub(i);
                } else if i != i64::MIN {
                    self.kbn_step_int(-i);
                } else {
                    self.kbn_step_int(i64::MAX);
                    self.kbn_step_int(1);
                }
            }
            other => {
                self.count -= 1;
                if !self.approx {
                    // SQLite subtracts the integer view here.
                    self.int = self.int.wrapping_sub(other.to_i64());
                } else {
                    self.kbn_step(-other.to_f64());
                }
            }
        }
    }

    fn real_total(&self) -> f64 {
        if !self.approx {
            self.int as f64
        } else if self.error.is_finite() {
            self.real + self.error
        } else {
            self.real
        }
    }
}

/// group_concat's accumulator, SQLite's `GroupConcatCtx` transcribed
/// literally, including how `inverse` trims the front of the text by the
/// recorded value and separator lengths. (When an empty value was the
/// first of the frame this trims a byte too many, exactly as SQLite does.)
#[derive(Clone, Debug, Default)]
struct GroupConcat {
    text: Vec<u8>,
    /// Something was accumulated since the text was last emptied.
    started: bool,
    /// Values currently accumulated.
    count: usize,
    first_sep_len: usize,
    /// Per-value separator lengths, once they stopped all being equal.
    sep_lens: Option<Vec<usize>>,
}

impl GroupConcat {
    /// Appends `value` after the separator; fails (SQLite's "string or
    /// blob too big") rather than grow the text past `MAX_LENGTH`.
    fn step(&mut self, value: &Value, sep: Option<&Value>) -> Result<()> {
        // A string's or blob's bytes in place; a number's text.
        let bytes: std::borrow::Cow<[u8]> = match value {
            Value::Null => return Ok(()),
            Value::Text(s) => std::borrow::Cow::Borrowed(s.as_bytes()),
            Value::Blob(b) => std::borrow::Cow::Borrowed(b),
            other => std::borrow::Cow::Owned(other.to_bytes().unwrap_or_default()),
        };
        let first_term = !self.started;
        // The separator's bytes: a comma by default, none for NULL.
        let sep: std::borrow::Cow<[u8]> = match sep {
            None => std::borrow::Cow::Borrowed(b","),
            Some(sep) => std::borrow::Cow::Owned(sep.to_bytes().unwrap_or_default()),
        };
        let sep_len = if first_term { 0 } else { sep.len() };
        crate::sql::functions::check_length(self.text.len() + sep_len + bytes.len())?;
        self.started = true;
        if first_term {
            self.first_sep_len = sep.len();
        } else {
            self.text.extend_from_slice(&sep);
            if sep.len() != self.first_sep_len || self.sep_lens.is_some() {
                let first = self.first_sep_len;
                let count = self.count;
                let lens = self
                    .sep_lens
                    .get_or_insert_with(|| vec![first; count.saturating_sub(1)]);
                lens.resize(count, 0);
                if count > 0 {
                    lens[count - 1] = sep.len();
                }
            }
        }
        self.count += 1;
        self.text.extend_from_slice(&bytes);
        Ok(())
    }

    fn inverse(&mut self, value: &Value) {
        let Some(bytes) = value.to_bytes() else {
            return;
        };
        let mut cut = bytes.len();
        self.count = self.count.saturating_sub(1);
        match &mut self.sep_lens {
            Some(lens) => {
                if self.count > 0 && !lens.is_empty() {
                    cut += lens.remove(0);
                }
            }
            None => cut += self.first_sep_len,
        }
        if cut >= self.text.len() {
            self.text.clear();
        } else {
            self.text.drain(..cut);
        }
        if self.text.is_empty() {
            self.started = false;
            self.sep_lens = None;
        }
    }

    /// `final` = aggregate result ('' when only empty values were seen);
    /// otherwise the window value (NULL when the text is empty).
    fn value(&self, final_result: bool) -> Value {
        if self.text.is_empty() && !(final_result && self.started) {
            return Value::Null;
        }
        match String::from_utf8(self.text.clone()) {
            Ok(s) => Value::Text(s),
            Err(e) => Value::text_from_bytes(e.as_bytes()),
        }
    }
}

#[derive(Clone, Debug)]
enum State {
    Count(i64),
    Sum(Sum),
    Best(Option<Value>),
    Concat(GroupConcat),
    Json(json::GroupJson),
}

/// One group's running aggregate.
#[derive(Clone, Debug)]
pub(crate) struct Accumulator {
    kind: AggregateKind,
    collation: Collation,
    /// Keys of the values seen, for DISTINCT.
    seen: Option<HashSet<Vec<u8>>>,
    state: State,
}

impl Accumulator {
    /// A fresh accumulator. `collation` is the argument's collating sequence
    /// (min, max and DISTINCT use it).
    pub(crate) fn new(kind: AggregateKind, distinct: bool, collation: Collation) -> Accumulator {
        let state = match kind {
            AggregateKind::CountStar | AggregateKind::Count => State::Count(0),
            AggregateKind::Sum | AggregateKind::Total | AggregateKind::Avg => {
                State::Sum(Sum::default())
            }
            AggregateKind::Min | AggregateKind::Max => State::Best(None),
            AggregateKind::GroupConcat => State::Concat(GroupConcat::default()),
            AggregateKind::JsonGroupArray(jsonb) => State::Json(json::GroupJson::new(false, jsonb)),
            AggregateKind::JsonGroupObject(jsonb) => State::Json(json::GroupJson::new(true, jsonb)),
        };
        Accumulator {
            kind,
            collation,
            seen: distinct.then(HashSet::new),
            state,
        }
    }

    #[cfg(test)] // the executor uses `step_reporting`
    /// Adds one row's arguments (none for `count(*)`).
    pub(crate) fn step(&mut self, args: &[Value]) -> Result<()> {
        self.step_reporting(args).map(|_| ())
    }

    /// Adds one row's arguments (none for `count(*)`). Returns true when a
    /// `min`/`max` took a new value (a replacement is strictly smaller or
    /// greater in the total order, so the value changed); false otherwise.
    pub(crate) fn step_reporting(&mut self, args: &[Value]) -> Result<bool> {
        self.step_with_json(args, &[])
    }

    /// True for the JSON aggregates, whose arguments' JSON subtype matters
    /// (fed with [`Accumulator::step_with_json`]).
    pub(crate) fn is_json(&self) -> bool {
        matches!(self.state, State::Json(_))
    }

    /// [`Accumulator::step_reporting`], with whether each argument carries
    /// SQLite's JSON subtype (only the JSON aggregates look).
    pub(crate) fn step_with_json(&mut self, args: &[Value], json: &[bool]) -> Result<bool> {
        if !self.admit(args.first().unwrap_or(&Value::Null)) {
            return Ok(false);
        }
        self.step_admitted(args, json)
    }

    /// DISTINCT's test of a row whose first argument is `first`: false
    /// when a value equal to it was admitted before (always true without
    /// DISTINCT). NULL is a value here, as in SQLite's DISTINCT (only the
    /// JSON aggregates, which take NULLs, can tell).
    pub(crate) fn admit(&mut self, first: &Value) -> bool {
        let Some(seen) = &mut self.seen else {
            return true;
        };
        let key = encode_key(
            std::slice::from_ref(first),
            &[KeyColumn {
                desc: false,
                collation: self.collation,
            }],
        );
        seen.insert(key)
    }

    /// [`Accumulator::step_with_json`] for a row DISTINCT has already
    /// admitted (or that an ordered aggregate's sort made unique).
    pub(crate) fn step_admitted(&mut self, args: &[Value], json: &[bool]) -> Result<bool> {
        let first = args.first().unwrap_or(&Value::Null);
        match &mut self.state {
            State::Count(n) => {
                if self.kind == AggregateKind::CountStar || !first.is_null() {
                    *n += 1;
                }
            }
            State::Sum(sum) => sum.step(first),
            State::Best(best) => {
                if first.is_null() {
                    return Ok(false);
                }
                let replace = match best {
                    None => true,
                    Some(b) => {
                        let o = compare(b, first, self.collation);
                        if self.kind == AggregateKind::Max {
                            o.is_lt()
                        } else {
                            o.is_gt()
                        }
                    }
                };
                if replace {
                    *best = Some(first.clone());
                }
                return Ok(replace);
            }
            State::Concat(concat) => concat.step(first, args.get(1))?,
            State::Json(group) => group.step(args, json)?,
        }
        Ok(false)
    }

    /// Whether [`Accumulator::inverse`] is available (sliding window frames);
    /// otherwise the executor recomputes the frame.
    pub(crate) fn supports_inverse(&self) -> bool {
        self.seen.is_none() && !matches!(self.state, State::Best(_))
    }

    /// Removes a row previously added with `step` (the oldest one still in
    /// the frame, as SQLite's window machinery guarantees).
    pub(crate) fn inverse(&mut self, args: &[Value]) -> Result<()> {
        if !self.supports_inverse() {
            return Err(crate::misuse!("{:?} aggregate has no inverse", self.kind));
        }
        let first = args.first().unwrap_or(&Value::Null);
        match &mut self.state {
            State::Count(n) => {
                if self.kind == AggregateKind::CountStar || !first.is_null() {
                    *n -= 1;
                }
            }
            State::Sum(sum) => sum.inverse(first),
            State::Concat(concat) => concat.inverse(first),
            State::Json(group) => group.inverse(),
            State::Best(_) => {}
        }
        Ok(())
    }

    /// The current result, leaving the accumulator usable.
    pub(crate) fn value(&self) -> Result<Value> {
        Ok(match &self.state {
            State::Count(n) => Value::Integer(*n),
            State::Sum(sum) => match self.kind {
                AggregateKind::Total => Value::real(sum.real_total()),
                _ if sum.count == 0 => Value::Null,
                AggregateKind::Avg => Value::real(sum.real_total() / sum.count as f64),
                _ if sum.approx && sum.overflow => return Err(sql_err!("integer overflow")),
                _ if sum.approx => Value::real(sum.real_total()),
                _ => Value::Integer(sum.int),
            },
            State::Best(best) => best.clone().unwrap_or(Value::Null),
            State::Concat(concat) => concat.value(false),
            State::Json(group) => crate::sql::functions::within_max_length(group.value())?,
        })
    }

    /// The final result. (Differs from [`Accumulator::value`] in one
    /// place, as in SQLite: a group_concat of only empty strings finishes
    /// as '' but its window value is NULL.)
    pub(crate) fn finish(self) -> Result<Value> {
        match &self.state {
            State::Concat(concat) => Ok(concat.value(true)),
            _ => self.value(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(kind: AggregateKind, distinct: bool, rows: &[Value]) -> Result<Value> {
        let mut acc = Accumulator::new(kind, distinct, Collation::Binary);
        for r in rows {
            acc.step(std::slice::from_ref(r))?;
        }
        acc.finish()
    }

    #[test]
    fn sums() {
        use Value::*;
        assert_eq!(run(AggregateKind::Sum, false, &[]).unwrap(), Null);
        assert_eq!(run(AggregateKind::Total, false, &[]).unwrap(), Real(0.0));
        assert_eq!(
            run(AggregateKind::Sum, false, &[Integer(1), Text("2".into())]).unwrap(),
            Integer(3)
        );
        assert!(run(AggregateKind::Sum, false, &[Integer(i64::MAX), Integer(1)]).is_err());
        assert_eq!(
            run(
                AggregateKind::Sum,
                false,
                &[Integer(i64::MAX), Integer(1), Real(0.5)]
            )
            .unwrap(),
            Real(9.223372036854776e18)
        );
        assert_eq!(
            run(AggregateKind::Avg, false, &[Integer(1), Integer(2)]).unwrap(),
            Real(1.5)
        );
        assert_eq!(
            run(
                AggregateKind::Count,
                true,
                &[Integer(1), Real(1.0), Null, Integer(2)]
            )
            .unwrap(),
            Integer(2)
        );
    }

    #[test]
    fn min_max_report_new_values_only() {
        use Value::*;
        let mut max = Accumulator::new(AggregateKind::Max, false, Collation::NoCase);
        let steps = [
            (Null, false),
            (Integer(2), true),
            (Real(2.0), false),
            (Integer(1), false),
            (Real(2.5), true),
            (Text("a".into()), true),
            (Text("A".into()), false),
            (Text("b".into()), true),
        ];
        for (v, changed) in steps {
            assert_eq!(
                max.step_reporting(std::slice::from_ref(&v)).unwrap(),
                changed,
                "{v:?}"
            );
        }
        assert_eq!(max.finish().unwrap(), Text("b".into()));
        let mut sum = Accumulator::new(AggregateKind::Sum, false, Collation::Binary);
        assert!(!sum.step_reporting(&[Integer(1)]).unwrap());
    }

    #[test]
    fn lookup_validates() {
        assert_eq!(
            lookup("COUNT", 0, false).unwrap(),
            Some(AggregateKind::CountStar)
        );
        assert_eq!(lookup("max", 2, false).unwrap(), None);
        assert!(lookup("sum", 2, false).is_err());
        assert!(lookup("group_concat", 2, true).is_err());
        assert_eq!(lookup("lower", 1, false).unwrap(), None);
    }

    #[test]
    fn group_concat_inverse_drops_the_oldest() {
        let mut acc = Accumulator::new(AggregateKind::GroupConcat, false, Collation::Binary);
        for (v, sep) in [("a", "-"), ("bb", "+"), ("c", "*")] {
            acc.step(&[Value::Text(v.into()), Value::Text(sep.into())])
                .unwrap();
        }
        assert_eq!(acc.value().unwrap(), Value::Text("a+bb*c".into()));
        acc.inverse(&[Value::Text("a".into()), Value::Text("-".into())])
            .unwrap();
        assert_eq!(acc.value().unwrap(), Value::Text("bb*c".into()));
    }
}
