//! Triggers: CREATE TRIGGER and DROP TRIGGER, their storage (the tree
//! `catalog::TRIGGER_TREE`), and the triggers a table's DROP or RENAME
//! takes along.
//!
//! Work in progress on the branch `triggers` (not on `main`): firing them
//! is the next step. The plan, from SQLite's documented behaviour and the
//! probes in the branch's notes:
//! - Each INSERT / UPDATE / DELETE plan holds the triggers of its table
//!   and event (UPDATE OF: those naming a SET column), split BEFORE /
//!   AFTER, their body statements planned lazily per catalog version.
//! - Per row: BEFORE triggers (NEW after defaults, affinity and generated
//!   columns; NEW.rowid -1 when not yet given), the write, AFTER triggers;
//!   WHEN first. A BEFORE UPDATE / DELETE whose row its triggers deleted
//!   skips the row.
//! - A body statement runs with `NEW.c` / `OLD.c` rewritten to parameters
//!   bound to the row's values; its SELECT rows are discarded; its changes
//!   count in total_changes(), not changes(); the outer statement's OR
//!   clause overrides the body statements'.
//! - RAISE(IGNORE) ends the trigger and skips the row (BEFORE); ABORT /
//!   FAIL / ROLLBACK fail the statement as that conflict algorithm does,
//!   with the message.
//! - A trigger does not fire while it is already running (SQLite's
//!   default, recursive_triggers OFF); nesting past 1000 levels fails.
//! - Foreign key actions fire the child table's triggers; REPLACE's
//!   deletes do not (recursive_triggers OFF).
//! - INSTEAD OF triggers make a view writable.

use std::rc::Rc;

use super::kv::Kv;
use crate::sql::ast::{self, TriggerTiming};
use crate::sql::catalog::{key, Catalog, Trigger, TRIGGER_TREE};
use crate::sql::record;
use crate::sql::value::Value;
use crate::{corrupt, sql_err, Result};

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
    let trigger = Trigger {
        name: name.clone(),
        table: key(target),
        def: ct.clone(),
        sql: sql.to_string(),
    };
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

/// Drops the triggers on table or view `table` (its DROP).
pub(crate) fn drop_all_on(kv: &mut dyn Kv, cat: &mut Catalog, table: &str) -> Result<()> {
    for t in cat.table_triggers(table) {
        kv.remove(TRIGGER_TREE, key(&t.name).as_bytes())?;
        cat.triggers.remove(&key(&t.name));
    }
    Ok(())
}

/// Stores `trigger` as `(name, table, sql)` under its lowercase name.
fn save(kv: &mut dyn Kv, trigger: &Trigger) -> Result<()> {
    kv.create_tree(TRIGGER_TREE)?;
    let value = record::encode(&[
        Value::Text(trigger.name.clone()),
        Value::Text(trigger.table.clone()),
        Value::Text(trigger.sql.clone()),
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
        let trigger = Trigger {
            name: name.clone(),
            table,
            def: *def,
            sql,
        };
        cat.triggers.insert(key(&name), Rc::new(trigger));
    }
    Ok(())
}
