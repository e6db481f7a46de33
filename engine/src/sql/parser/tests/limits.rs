//! Bounds: nesting depth and hostile input end in typed errors, never in a
//! stack overflow, on a thread with a 1 MiB stack (a wasm32 default).

use crate::error::Error;
use crate::sql::parser::cursor::MAX_DEPTH;
use crate::sql::parser::parse;

const SMALL_STACK: usize = 1 << 20;

/// A nesting depth every build can parse within `MAX_PARSER_STACK`.
const SAFE_NESTING: usize = 12;

/// Runs `f` on a thread with a 1 MiB stack.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(f)
        .expect("thread starts")
        .join()
        .expect("no panic or overflow on a 1 MiB stack");
}

/// Wraps an expression in one more level of some construct.
type Nester = fn(&str) -> String;

/// Ways to nest one level deeper around `inner`.
const NESTERS: &[(&str, Nester)] = &[
    ("parentheses", |e| format!("({e})")),
    ("unary minus", |e| format!("- {e}")),
    ("NOT", |e| format!("NOT {e}")),
    ("function call", |e| format!("abs({e})")),
    ("CASE", |e| {
        format!("CASE WHEN {e} THEN {e_short} END", e_short = 1)
    }),
    ("CAST", |e| format!("CAST({e} AS INT)")),
    ("IN list", |e| format!("1 IN ({e})")),
    ("scalar subquery", |e| format!("(SELECT {e})")),
    ("EXISTS", |e| format!("EXISTS (SELECT {e})")),
    ("row value", |e| format!("({e}, 1)")),
    ("COLLATE", |e| format!("{e} COLLATE nocase")),
    ("right-nested addition", |e| format!("1 + ({e})")),
];

fn nested(nest: Nester, depth: usize) -> String {
    let mut e = "1".to_string();
    for _ in 0..depth {
        e = nest(&e);
    }
    format!("SELECT {e}")
}

fn is_depth_error(e: &Error) -> bool {
    matches!(e, Error::Syntax { message, .. } if message.contains("too large"))
}

#[test]
fn deep_nesting_is_a_typed_error_not_a_stack_overflow() {
    on_small_stack(|| {
        for (what, nest) in NESTERS {
            let sql = nested(*nest, 5 * MAX_DEPTH as usize);
            match parse(&sql) {
                Err(e) => {
                    assert!(is_depth_error(&e), "{what}: {e}");
                    assert!(
                        e.position().is_some_and(|p| p <= sql.len()),
                        "{what}: {e:?}"
                    );
                }
                Ok(_) => panic!("{what}: nesting {} deep parsed", 5 * MAX_DEPTH),
            }
        }
    });
}

#[test]
fn nesting_below_the_bound_parses_renders_and_drops_on_a_small_stack() {
    on_small_stack(|| {
        for (what, nest) in NESTERS {
            // Deep enough to be real, shallow enough for the stack budget
            // of an unoptimised build (a scalar subquery level there costs
            // ~20 KiB).
            let sql = nested(*nest, SAFE_NESTING);
            let statements = parse(&sql).unwrap_or_else(|e| panic!("{what}: {e}"));
            let rendered = statements[0].to_string();
            let again = parse(&rendered).unwrap_or_else(|e| panic!("{what} rendered: {e}"));
            assert_eq!(again.len(), 1);
            drop(again);
            drop(statements);
        }
    });
}

#[test]
fn long_operator_chains_are_bounded_by_tree_height() {
    on_small_stack(|| {
        let chain = |n: usize, op: &str| format!("SELECT {}", vec!["x"; n].join(op));
        for op in [" + ", " AND ", " OR ", " || ", " = ", " COLLATE "] {
            // A chain as high as the bound allows parses, renders and drops.
            let short = chain(MAX_DEPTH as usize - 10, op);
            if op != " COLLATE " {
                let statements = parse(&short).unwrap_or_else(|e| panic!("{op}: {e}"));
                assert!(parse(&statements[0].to_string()).is_ok(), "{op}");
            }
            let long = chain(20 * MAX_DEPTH as usize, op);
            let e = parse(&long).expect_err("a chain deeper than the bound fails");
            assert!(is_depth_error(&e) || op == " COLLATE ", "{op}: {e}");
        }
        // Lists are not nesting: a long IN list or VALUES is fine.
        let list = vec!["1"; 50_000].join(",");
        assert!(parse(&format!("SELECT 1 IN ({list})")).is_ok());
        assert!(parse(&format!("VALUES ({list})")).is_ok());
        // A compound is a list too, bounded at SQLite's 500 terms.
        let compound = vec!["SELECT 1"; 500].join(" UNION ALL ");
        assert!(parse(&compound).is_ok());
        let compound = vec!["SELECT 1"; 5_000].join(" UNION ALL ");
        let e = parse(&compound).expect_err("501 terms or more fail");
        assert!(
            e.to_string().contains("too many terms in compound SELECT"),
            "{e}"
        );
    });
}

#[test]
fn deep_from_nesting_is_bounded() {
    on_small_stack(|| {
        let mut from = "t".to_string();
        for _ in 0..5 * MAX_DEPTH {
            from = format!("(SELECT * FROM {from})");
        }
        let e = parse(&format!("SELECT * FROM {from}")).expect_err("too deep");
        assert!(is_depth_error(&e), "{e}");
        let mut from = "t".to_string();
        for _ in 0..5 * MAX_DEPTH {
            from = format!("({from} JOIN u)");
        }
        let e = parse(&format!("SELECT * FROM {from}")).expect_err("too deep");
        assert!(is_depth_error(&e), "{e}");
    });
}
