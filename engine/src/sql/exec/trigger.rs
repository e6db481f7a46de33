//! Triggers: CREATE TRIGGER and DROP TRIGGER, their storage (the tree
//! `catalog::TRIGGER_TREE`), the triggers a table's DROP or RENAME takes
//! along, and firing them, as SQLite's (tests `trigger_definitions_as_sqlite`,
//! `insert_triggers_fire_as_sqlite`, `update_and_delete_triggers_fire_as_sqlite`,
//! `foreign_key_actions_fire_child_triggers_as_sqlite`,
//! `views_written_through_instead_of_triggers_as_sqlite`):
//! - Each INSERT / UPDATE / DELETE plan holds the triggers of its table
//!   and event ([`Triggers`]; UPDATE OF: those naming a SET column),
//!   newest first, their WHEN and statements planned on first use.
//! - Per row: BEFORE triggers (NEW after defaults, affinity and generated
//!   columns; NEW.rowid -1 when not yet given), the write, AFTER
//!   triggers. A BEFORE UPDATE / DELETE that deleted its row skips it; the
//!   columns an UPDATE does not SET take what the BEFORE triggers left.
//! - `NEW.c` / `OLD.c` bind to parameters ([`RowContext`]); a statement's
//!   SELECT rows are dropped; its changes count in total_changes() (even
//!   when the statement fails), not changes(); the outer statement's OR
//!   clause overrides the body's.
//! - RAISE(IGNORE) skips the row; ABORT / FAIL / ROLLBACK stop the outer
//!   statement as those algorithms do, with the message
//!   (`CONSTRAINT_TRIGGER`); so does a trigger's statement a constraint
//!   stopped under FAIL or ROLLBACK ([`halt_outer`]).
//! - A trigger does not fire while it is already running, unless
//!   `PRAGMA recursive_triggers` is ON (it is OFF by default, as in
//!   SQLite); then REPLACE also fires the DELETE triggers of the rows it
//!   deletes (`dml::resolve_conflicts`). Triggers and foreign key actions
//!   nest at most 1000 deep (400 in wasm), within a stack bound
//!   (`sql::nesting::Frame`).
//! - An upsert's DO UPDATE fires UPDATE triggers (those naming a column
//!   it sets); foreign key actions fire the child table's DELETE / UPDATE
//!   triggers, in SQLite's order of keys (newest table, last key first),
//!   and a child row a BEFORE trigger kept still referencing the parent
//!   fails the statement.
//! - INSTEAD OF triggers are a view's, fired by `super::view_write`.
//!
//! - With recursive_triggers ON, an UPDATE OR REPLACE whose DELETE
//!   triggers changed or deleted the row it updates (keeping its rowid)
//!   fails, as SQLite's pinned row does (SQLITE_CONSTRAINT_PINNED; SQLite
//!   fails it for a write to any row of the table, inside the trigger's
//!   statement, whose changes then do not count in total_changes()).
//!
//! Unlike SQLite, an ALTER does not rewrite the names in a trigger's
//! statements: one that leaves them unbound fails ([`check_all`]), as
//! for views. RENAME TO of the trigger's own table is carried (its ON
//! clause, the CREATE TRIGGER rendered anew).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::dml::DmlOptions;
use super::kv::Kv;
use super::scan::Row;
use super::write::TableWriter;
use super::ExecCtx;
use crate::sql::ast::{self, RaiseAction, TriggerTiming};
use crate::sql::catalog::{key, Catalog, Table, Trigger, TRIGGER_TREE};
use crate::sql::record;
use crate::sql::value::Value;
use crate::{corrupt, sql_err, ConstraintKind, Error, Result};

/// The row a trigger's statements are bound against: its table, and which
/// of `OLD` and `NEW` it has (an INSERT has no OLD, a DELETE no NEW). A
/// `NEW.c` / `OLD.c` binds to a parameter: OLD's columns then rowid at
/// `0..=n`, NEW's at `n + 1..=2n + 1`, `n` the table's column count.
#[derive(Clone)]
pub(crate) struct RowContext {
    pub table: Rc<Table>,
    pub old: bool,
    pub new: bool,
}

impl RowContext {
    /// The parameter `qualifier.column` binds to (`qualifier` `old` or
    /// `new`, in any case; `column` a column or a rowid name), with its
    /// column index (`n` for the rowid); `None` for another qualifier, an
    /// error for a row the trigger does not have or a column it lacks.
    pub(crate) fn param(&self, qualifier: &str, column: &str) -> Result<Option<(usize, usize)>> {
        let old = qualifier.eq_ignore_ascii_case("old");
        if !old && !qualifier.eq_ignore_ascii_case("new") {
            return Ok(None);
        }
        let n = self.table.columns.len();
        let rowid = super::dml::is_rowid_name(column);
        let i = match self.table.column_index(column) {
            Some(i) => i,
            None if rowid && self.table.rowid_visible() => n,
            None => return Err(sql_err!("no such column: {qualifier}.{column}")),
        };
        if (old && !self.old) || (!old && !self.new) {
            return Err(sql_err!("no such column: {qualifier}.{column}"));
        }
        Ok(Some((if old { i } else { n + 1 + i }, i)))
    }
}

thread_local! {
    /// The row the statements being bound belong to ([`RowContext`]).
    static BINDING: RefCell<Option<RowContext>> = const { RefCell::new(None) };
    /// The RAISE that stopped a trigger's statement, read by the code that
    /// fired it.
    static RAISED: Cell<Option<RaiseAction>> = const { Cell::new(None) };
    /// How a RAISE(FAIL | ROLLBACK) stops the statement outside every
    /// trigger ([`take_halt`]).
    static HALT: Cell<Option<super::write::Halt>> = const { Cell::new(None) };
}

/// For the statement outside every trigger: how a trigger's RAISE(FAIL)
/// or RAISE(ROLLBACK) stops it (SQLite applies it to the statement, not
/// to the trigger's own); `None` inside a trigger, or without one.
pub(crate) fn take_halt() -> Option<super::write::Halt> {
    match ACTIVE.with(|a| a.borrow().is_empty()) {
        true => HALT.with(Cell::take),
        false => None,
    }
}

/// A trigger's statement stopped by a constraint under FAIL or ROLLBACK
/// (its own clause, or the outer statement's overriding it) stops the
/// statement outside every trigger so too, as SQLite does; ABORT is the
/// default already.
pub(crate) fn halt_outer(halt: super::write::Halt) {
    if !matches!(halt, super::write::Halt::Abort) {
        HALT.with(|h| h.set(Some(halt)));
    }
}

/// Forgets what an earlier statement's triggers raised (each statement
/// starts clean).
pub(crate) fn reset() {
    RAISED.with(|r| r.set(None));
    HALT.with(|h| h.set(None));
}

/// The row of the trigger whose statements are being bound, if any.
pub(crate) fn binding() -> Option<RowContext> {
    BINDING.with(|b| b.borrow().clone())
}

/// Runs `f` (which binds a trigger's statements) with `row` as
/// [`binding`], restoring the previous one after.
pub(crate) fn with_binding<T>(row: RowContext, f: impl FnOnce() -> T) -> T {
    let before = BINDING.with(|b| b.replace(Some(row)));
    let out = f();
    BINDING.with(|b| *b.borrow_mut() = before);
    out
}

/// The error a RAISE evaluates to; the firing code tells IGNORE apart by
/// [`take_raised`].
pub(crate) fn raise(action: RaiseAction, message: Option<&str>) -> Error {
    RAISED.with(|r| r.set(Some(action)));
    Error::Constraint {
        kind: ConstraintKind::Trigger,
        message: message.unwrap_or_default().to_string(),
    }
}

/// The RAISE behind the last error of a trigger's statement, cleared.
pub(crate) fn take_raised() -> Option<RaiseAction> {
    RAISED.with(|r| r.take())
}

/// CREATE TRIGGER; false when IF NOT EXISTS found one of that name.
pub(crate) fn create(
    kv: &mut dyn Kv,
    cat: &mut Catalog,
    ct: &ast::CreateTrigger,
    sql: &str,
) -> Result<bool> {
    let name = &ct.name.name;
    if let Some(schema) = &ct.name.schema {
        if !schema.eq_ignore_ascii_case("main") {
            return Err(sql_err!("unknown database {schema}"));
        }
    }
    if cat.triggers.contains_key(&key(name)) {
        if ct.if_not_exists {
            return Ok(false);
        }
        return Err(sql_err!("trigger {name} already exists"));
    }
    if name.to_ascii_lowercase().starts_with("sqlite_") {
        return Err(sql_err!("object name reserved for internal use: {name}"));
    }
    let target = &ct.table.name;
    let on_view = cat.views.contains_key(&key(target));
    if !on_view && cat.table(target).is_none() {
        return Err(sql_err!("no such table: main.{target}"));
    }
    match (ct.timing, on_view) {
        (TriggerTiming::InsteadOf, false) => {
            return Err(sql_err!(
                "cannot create INSTEAD OF trigger on table: {target}"
            ))
        }
        (TriggerTiming::Before | TriggerTiming::After, true) => {
            let when = match ct.timing {
                TriggerTiming::Before => "BEFORE",
                _ => "AFTER",
            };
            return Err(sql_err!("cannot create {when} trigger on view: {target}"));
        }
        _ => {}
    }
    cat.next_id += 1;
    let trigger = Trigger {
        name: name.clone(),
        table: key(target),
        def: ct.clone(),
        sql: sql.to_string(),
        seq: cat.next_id,
    };
    super::ddl::save_meta(kv, cat)?;
    save(kv, &trigger)?;
    cat.triggers.insert(key(name), Rc::new(trigger));
    Ok(true)
}

/// DROP TRIGGER; false when IF EXISTS found none.
pub(crate) fn drop(kv: &mut dyn Kv, cat: &mut Catalog, d: &ast::DropObject) -> Result<bool> {
    let name = &d.name.name;
    if cat.triggers.remove(&key(name)).is_none() {
        return match d.if_exists {
            true => Ok(false),
            false => Err(sql_err!("no such trigger: {name}")),
        };
    }
    kv.remove(TRIGGER_TREE, key(name).as_bytes())?;
    Ok(true)
}

/// After RENAME TO of table `old`: its triggers are on `new`, the name
/// after ON in their CREATE TRIGGER replaced by `new` in double quotes,
/// the rest of the text kept (SQLite edits it so). (Their statements keep
/// what they name: [`check_all`] fails the ALTER if that breaks them.)
pub(crate) fn rename_table(kv: &mut dyn Kv, cat: &mut Catalog, old: &str, new: &str) -> Result<()> {
    for t in cat.table_triggers(old) {
        let mut def = t.def.clone();
        def.table.name = new.to_string();
        let trigger = Trigger {
            name: t.name.clone(),
            table: key(new),
            sql: renamed_target(&t.sql, new)?,
            def,
            seq: t.seq,
        };
        save(kv, &trigger)?;
        cat.triggers.insert(key(&t.name), Rc::new(trigger));
    }
    Ok(())
}

/// `sql` (a CREATE TRIGGER) with the table name after ON replaced by
/// `new`, quoted.
fn renamed_target(sql: &str, new: &str) -> Result<String> {
    use crate::sql::lexer::{Lexer, TokenKind};
    let statements = crate::sql::parser::parse(sql)?;
    let Some(ast::Statement::CreateTrigger(def)) = statements.first() else {
        return Err(sql_err!(
            "internal: a stored trigger is not a CREATE TRIGGER"
        ));
    };
    let mut lexer = Lexer::new(sql, def.table.pos);
    let mut name = lexer.next_token();
    if def.table.schema.is_some() && lexer.next_token().kind == TokenKind::Dot {
        name = lexer.next_token();
    }
    let quoted = format!("\"{}\"", new.replace('"', "\"\""));
    Ok(format!(
        "{}{quoted}{}",
        &sql[..name.start],
        &sql[name.end..]
    ))
}

/// Drops the triggers on table or view `table` (its DROP).
pub(crate) fn drop_all_on(kv: &mut dyn Kv, cat: &mut Catalog, table: &str) -> Result<()> {
    for t in cat.table_triggers(table) {
        kv.remove(TRIGGER_TREE, key(&t.name).as_bytes())?;
        cat.triggers.remove(&key(&t.name));
    }
    Ok(())
}

/// Stores `trigger` as `(name, table, sql, seq)` under its lowercase name.
fn save(kv: &mut dyn Kv, trigger: &Trigger) -> Result<()> {
    kv.create_tree(TRIGGER_TREE)?;
    let value = record::encode(&[
        Value::Text(trigger.name.clone()),
        Value::Text(trigger.table.clone()),
        Value::Text(trigger.sql.clone()),
        Value::Integer(trigger.seq as i64),
    ]);
    kv.insert(TRIGGER_TREE, key(&trigger.name).as_bytes(), &value)?;
    Ok(())
}

/// Reads the stored triggers into `cat` (after its tables and views).
pub(crate) fn load(kv: &dyn Kv, cat: &mut Catalog) -> Result<()> {
    if !kv.tree_exists(TRIGGER_TREE)? {
        return Ok(());
    }
    let entries = kv.scan(
        TRIGGER_TREE,
        std::ops::Bound::Unbounded,
        std::ops::Bound::Unbounded,
        false,
        None,
    )?;
    for (_, v) in entries {
        let rec = record::decode(&v)?;
        let text = |i: usize| match rec.get(i) {
            Some(Value::Text(s)) => Some(s.clone()),
            _ => None,
        };
        let (Some(name), Some(table), Some(sql)) = (text(0), text(1), text(2)) else {
            return Err(corrupt!(0, "malformed trigger entry"));
        };
        let bad = |what: &str| corrupt!(0, "trigger {name}: {what}");
        let statements = crate::sql::parser::parse(&sql).map_err(|e| bad(&e.to_string()))?;
        let Some(ast::Statement::CreateTrigger(def)) = statements.into_iter().next() else {
            return Err(bad("not a CREATE TRIGGER"));
        };
        let seq = match rec.get(3) {
            Some(Value::Integer(n)) => *n as u64,
            _ => return Err(bad("no sequence number")),
        };
        let trigger = Trigger {
            name: name.clone(),
            table,
            def: *def,
            sql,
            seq,
        };
        cat.triggers.insert(key(&name), Rc::new(trigger));
    }
    Ok(())
}

/// After an ALTER: every trigger's WHEN and statements must still bind
/// (SQLite rewrites the names a rename changes; triggers here keep their
/// text, so one a rename or a dropped column breaks fails the ALTER, as
/// one that was already broken does in SQLite).
pub(crate) fn check_all(kv: &dyn Kv, cat: &Catalog) -> Result<()> {
    let mut all: Vec<Rc<Trigger>> = cat.triggers.values().cloned().collect();
    all.sort_by_key(|t| t.seq);
    for trigger in all {
        let table = match cat.views.get(&trigger.table) {
            Some(view) => super::view_write::view_table(cat, view),
            None => cat.table_or_err(&trigger.def.table.name).cloned(),
        };
        let table = table.map_err(|e| sql_err!("error in trigger {}: {e}", trigger.name))?;
        let event = match trigger.def.event {
            ast::TriggerEvent::Insert => Event::Insert,
            ast::TriggerEvent::Update(_) => Event::Update,
            ast::TriggerEvent::Delete => Event::Delete,
        };
        if let Err(e) = Firing::new(trigger.clone(), &table, event, None).planned(kv, cat) {
            return Err(sql_err!("error in trigger {}: {e}", trigger.name));
        }
    }
    Ok(())
}

/// When a trigger fires against its row's change.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event {
    Insert,
    Update,
    Delete,
}

/// The triggers a write fires on its table for one kind of change, newest
/// first (SQLite's order), each planned when it first fires.
pub(crate) struct Triggers {
    before: Vec<Firing>,
    after: Vec<Firing>,
    /// INSTEAD OF triggers (of a view: [`super::view_write`]).
    instead: Vec<Firing>,
}

/// One trigger as a write fires it.
struct Firing {
    trigger: Rc<Trigger>,
    row: RowContext,
    /// The outer statement's conflict clause, which overrides its
    /// statements' (SQLite's rule).
    or: Option<ast::ConflictResolution>,
    planned: RefCell<Option<Rc<Planned>>>,
}

/// A trigger's WHEN and statements, bound against its row.
struct Planned {
    when: Option<crate::sql::planner::plan::Expr>,
    body: Vec<(ast::Statement, super::statement::Plan)>,
}

thread_local! {
    /// The triggers running on this thread's stack: with recursive_triggers
    /// OFF (SQLite's default) a trigger does not fire again inside itself.
    static ACTIVE: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

impl Triggers {
    /// The triggers of `table` for `event` (for an UPDATE, those without
    /// an OF list or naming one of `set` columns), or `None` when there
    /// are none; `or` is the statement's conflict clause.
    pub(crate) fn of(
        cat: &Catalog,
        table: &Rc<Table>,
        event: Event,
        set: &[usize],
        or: Option<ast::ConflictResolution>,
    ) -> Option<Triggers> {
        if cat.triggers.is_empty() {
            return None;
        }
        let mut out = Triggers {
            before: Vec::new(),
            after: Vec::new(),
            instead: Vec::new(),
        };
        for trigger in cat.table_triggers(&table.name) {
            let fires = match (&trigger.def.event, event) {
                (ast::TriggerEvent::Insert, Event::Insert) => true,
                (ast::TriggerEvent::Delete, Event::Delete) => true,
                (ast::TriggerEvent::Update(columns), Event::Update) => {
                    columns.is_empty()
                        || columns
                            .iter()
                            .any(|c| table.column_index(c).is_some_and(|i| set.contains(&i)))
                }
                _ => false,
            };
            if !fires {
                continue;
            }
            let firing = Firing::new(trigger.clone(), table, event, or);
            match trigger.def.timing {
                TriggerTiming::Before => out.before.push(firing),
                TriggerTiming::After => out.after.push(firing),
                TriggerTiming::InsteadOf => out.instead.push(firing),
            }
        }
        let none = out.before.is_empty() && out.after.is_empty() && out.instead.is_empty();
        (!none).then_some(out)
    }

    /// Whether INSTEAD OF triggers fire (else a write of the view is refused).
    pub(crate) fn has_instead(&self) -> bool {
        !self.instead.is_empty()
    }

    /// The BEFORE UPDATE triggers for row `old` of `w`'s table becoming
    /// `new` (they see its generated columns computed): the row as they
    /// left it, or `None` when one skipped it or it is gone. The columns
    /// of `new` the change does not set (`set` false; the rowid's slot
    /// included) then take that row's values, SQLite's rule. An UPDATE,
    /// an upsert's DO UPDATE and a foreign key action all change a row so.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(crate) fn before_update(
        &self,
        kv: &mut dyn Kv,
        cat: &Catalog,
        w: &TableWriter,
        old: &[Value],
        new: &mut [Value],
        set: &dyn Fn(usize) -> bool,
        (params, opts): (&[Value], DmlOptions),
    ) -> Result<Option<Row>> {
        let mut shown = new.to_vec();
        ExecCtx::scoped(&*kv, params, opts.batch_limit, |ctx| {
            w.compute_generated(ctx, &mut shown)
        })?;
        if !self.fire(
            TriggerTiming::Before,
            kv,
            cat,
            Some(old),
            Some(&shown),
            opts,
        )? {
            return Ok(None);
        }
        let Value::Integer(rowid) = old[w.table.columns.len()] else {
            return Ok(None);
        };
        let Some(now) = w.read(&*kv, rowid)? else {
            return Ok(None);
        };
        for (i, v) in now.iter().enumerate() {
            if !set(i) {
                new[i] = v.clone();
            }
        }
        Ok(Some(now))
    }

    /// Fires the triggers of `timing` for a row (`old`, `new`: the rows as
    /// `Row`s, rowid last); false when one of them RAISE(IGNORE)d, so the
    /// row's change is skipped (which matters for BEFORE triggers).
    pub(crate) fn fire(
        &self,
        timing: TriggerTiming,
        kv: &mut dyn Kv,
        cat: &Catalog,
        old: Option<&[Value]>,
        new: Option<&[Value]>,
        opts: DmlOptions,
    ) -> Result<bool> {
        let list = match timing {
            TriggerTiming::Before => &self.before,
            TriggerTiming::After => &self.after,
            TriggerTiming::InsteadOf => &self.instead,
        };
        for f in list {
            if !f.fire(kv, cat, old, new, opts)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

impl Firing {
    /// `trigger` firing for a row of `table` changed by `event`, under the
    /// statement's conflict clause `or`.
    fn new(
        trigger: Rc<Trigger>,
        table: &Rc<Table>,
        event: Event,
        or: Option<ast::ConflictResolution>,
    ) -> Firing {
        Firing {
            row: RowContext {
                table: table.clone(),
                old: event != Event::Insert,
                new: event != Event::Delete,
            },
            trigger,
            or,
            planned: RefCell::new(None),
        }
    }

    /// Runs the trigger for one row, unless it is already running; false
    /// when it RAISE(IGNORE)d.
    fn fire(
        &self,
        kv: &mut dyn Kv,
        cat: &Catalog,
        old: Option<&[Value]>,
        new: Option<&[Value]>,
        opts: DmlOptions,
    ) -> Result<bool> {
        let name = key(&self.trigger.name);
        if !opts.recursive_triggers && ACTIVE.with(|a| a.borrow().contains(&name)) {
            return Ok(true);
        }
        let _frame = crate::sql::nesting::Frame::enter()?;
        let planned = self.planned(kv, cat)?;
        let n = self.row.table.columns.len();
        let mut params = Vec::with_capacity(2 * (n + 1));
        for row in [old, new] {
            match row {
                Some(r) => params.extend(r.iter().take(n + 1).cloned()),
                None => params.extend(std::iter::repeat_n(Value::Null, n + 1)),
            }
        }
        if let Some(when) = &planned.when {
            let v = super::ExecCtx::new(&*kv, &params, opts.batch_limit)
                .eval(when, &super::eval::Env::new(&[], None))?;
            if v.is_true() != Some(true) {
                return Ok(true);
            }
        }
        ACTIVE.with(|a| a.borrow_mut().push(name));
        let mut result = Ok(true);
        for (stmt, plan) in &planned.body {
            take_raised();
            if let Err(e) = super::statement::run_in_trigger(kv, cat, plan, stmt, &params, opts) {
                result = match take_raised() {
                    Some(RaiseAction::Ignore) => Ok(false),
                    Some(RaiseAction::Fail) => {
                        HALT.with(|h| h.set(Some(super::write::Halt::Fail)));
                        Err(e)
                    }
                    Some(RaiseAction::Rollback) => {
                        HALT.with(|h| h.set(Some(super::write::Halt::Rollback)));
                        Err(e)
                    }
                    _ => Err(e),
                };
                break;
            }
        }
        ACTIVE.with(|a| a.borrow_mut().pop());
        result
    }

    /// The trigger's WHEN and statements bound against its row, made on
    /// first use.
    fn planned(&self, kv: &dyn Kv, cat: &Catalog) -> Result<Rc<Planned>> {
        if let Some(p) = self.planned.borrow().as_ref() {
            return Ok(p.clone());
        }
        let def = &self.trigger.def;
        let planned = with_binding(self.row.clone(), || -> Result<Planned> {
            let when = match &def.when {
                Some(w) => {
                    let mut binder = crate::sql::binder::Binder::new(cat);
                    let scope = crate::sql::binder::scope::Scope::new(Vec::new(), None);
                    Some(binder.bind_plain(w, &scope, &mut Default::default())?)
                }
                None => None,
            };
            let mut body = Vec::with_capacity(def.body.len());
            for s in &def.body {
                let mut s = s.clone();
                if let Some(or) = self.or {
                    match &mut s {
                        ast::Statement::Insert(i) => i.or = Some(or),
                        ast::Statement::Update(u) => u.or = Some(or),
                        _ => {}
                    }
                }
                let plan = super::statement::prepare(kv, cat, &s)?;
                body.push((s, plan));
            }
            Ok(Planned { when, body })
        })?;
        let planned = Rc::new(planned);
        *self.planned.borrow_mut() = Some(planned.clone());
        Ok(planned)
    }
}
