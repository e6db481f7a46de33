//! Expression parsing: precedence, associativity, special forms, literals,
//! parameters.

use super::support::{expr, grouped, one};
use crate::sql::ast::{BinaryOp, ExprKind, Literal, Statement, UnaryOp};
use crate::sql::parser::parse_next;

#[test]
fn arithmetic_precedence_and_left_associativity() {
    assert_eq!(grouped("1 + 2 * 3"), "1 + (2 * 3)");
    assert_eq!(grouped("1 - 2 - 3"), "(1 - 2) - 3");
    assert_eq!(grouped("1 * 2 % 3 / 4"), "((1 * 2) % 3) / 4");
    assert_eq!(grouped("'a' || 'b' * 2"), "('a' || 'b') * 2");
    assert_eq!(grouped("1 + 2 << 3 & 4"), "((1 + 2) << 3) & 4");
    assert_eq!(grouped("a -> 'x' ->> 'y'"), "(a -> 'x') ->> 'y'");
    assert_eq!(grouped("1 < 2 = 3 > 4"), "(1 < 2) = (3 > 4)");
}

#[test]
fn logical_precedence_not_is_looser_than_comparison() {
    assert_eq!(grouped("a OR b AND c"), "a OR (b AND c)");
    assert_eq!(grouped("NOT a = b"), "NOT (a = b)");
    assert_eq!(grouped("NOT a AND b"), "(NOT a) AND b");
    assert_eq!(grouped("NOT NOT a"), "NOT (NOT a)");
    assert_eq!(grouped("a = NOT b"), "a = (NOT b)");
}

#[test]
fn unary_binds_tighter_than_collate_and_binary() {
    assert_eq!(grouped("-a * b"), "(-a) * b");
    assert_eq!(grouped("- - 1"), "-(-1)");
    assert_eq!(grouped("~a || b"), "(~a) || b");
    assert_eq!(grouped("-a COLLATE nocase"), "(-a) COLLATE nocase");
    assert_eq!(grouped("a || b COLLATE nocase"), "a || (b COLLATE nocase)");
}

#[test]
fn equality_level_forms() {
    assert_eq!(
        grouped("a NOT BETWEEN 1 AND 2 AND c"),
        "(a NOT BETWEEN 1 AND 2) AND c"
    );
    assert_eq!(
        grouped("a BETWEEN b + 1 AND c * 2"),
        "a BETWEEN (b + 1) AND (c * 2)"
    );
    assert_eq!(grouped("x NOT IN (1, 2)"), "x NOT IN (1, 2)");
    assert_eq!(grouped("x IN ()"), "x IN ()");
    assert_eq!(grouped("x IN (SELECT 1)"), "x IN (SELECT 1)");
    assert_eq!(grouped("x IN t"), "x IN t");
    assert_eq!(grouped("x IN main.t"), "x IN main.t");
    assert_eq!(
        grouped("x NOT LIKE 'a%' ESCAPE '\\'"),
        "x NOT LIKE 'a%' ESCAPE '\\'"
    );
    assert_eq!(grouped("x GLOB 'a*' = 1"), "(x GLOB 'a*') = 1");
    assert_eq!(grouped("x IS NOT DISTINCT FROM y"), "x IS y");
    assert_eq!(grouped("x IS DISTINCT FROM y"), "x IS NOT y");
    assert_eq!(grouped("x IS NOT y + 1"), "x IS NOT (y + 1)");
    assert_eq!(grouped("x ISNULL"), "x IS NULL");
    assert_eq!(grouped("x NOTNULL"), "x IS NOT NULL");
    assert_eq!(grouped("x NOT NULL"), "x IS NOT NULL");
    assert_eq!(grouped("x IS NOT NULL"), "x IS NOT NULL");
    assert_eq!(grouped("x == y <> z"), "(x = y) != z");
    assert_eq!(grouped("(a, b) = (1, 2)"), "(a, b) = (1, 2)");
}

#[test]
fn primaries() {
    assert_eq!(grouped("CAST(a AS VARCHAR(10))"), "CAST(a AS VARCHAR(10))");
    assert_eq!(
        grouped("CAST(a AS unsigned big int)"),
        "CAST(a AS unsigned big int)"
    );
    assert_eq!(
        grouped("CASE WHEN a THEN 1 ELSE 2 END"),
        "CASE WHEN a THEN 1 ELSE 2 END"
    );
    assert_eq!(
        grouped("CASE a WHEN 1 THEN 'x' END"),
        "CASE a WHEN 1 THEN 'x' END"
    );
    assert_eq!(grouped("NOT EXISTS (SELECT 1)"), "NOT EXISTS (SELECT 1)");
    assert_eq!(grouped("(SELECT max(x) FROM t)"), "(SELECT max(x) FROM t)");
    assert_eq!(grouped("count(*)"), "count(*)");
    assert_eq!(grouped("count(DISTINCT a)"), "count(DISTINCT a)");
    assert_eq!(
        grouped("group_concat(a, ',' ORDER BY b DESC)"),
        "group_concat(a, ',' ORDER BY b DESC)"
    );
    assert_eq!(
        grouped("sum(a) FILTER (WHERE a > 0)"),
        "sum(a) FILTER (WHERE a > 0)"
    );
    assert_eq!(
        grouped("row_number() OVER (PARTITION BY a ORDER BY b ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)"),
        "row_number() OVER (PARTITION BY a ORDER BY b ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)"
    );
    assert_eq!(grouped("sum(x) OVER w"), "sum(x) OVER w");
    assert_eq!(grouped("replace(a, 'x', 'y')"), "\"replace\"(a, 'x', 'y')");
    assert_eq!(grouped("t.a + main.t.b"), "t.a + main.t.b");
    assert_eq!(grouped("\"a b\" + [c d] + `e`"), "(\"a b\" + `c d`) + e");
    assert_eq!(grouped("key + action"), "`key` + `action`");
}

#[test]
fn literals() {
    assert_eq!(expr("1").kind, ExprKind::Literal(Literal::Integer(1)));
    assert_eq!(expr("0x10").kind, ExprKind::Literal(Literal::Integer(16)));
    assert_eq!(expr("1.5e3").kind, ExprKind::Literal(Literal::Real(1500.0)));
    assert_eq!(
        expr("9223372036854775808").kind,
        ExprKind::Literal(Literal::Real(9223372036854775808.0))
    );
    assert_eq!(
        expr("-9223372036854775808").kind,
        ExprKind::Literal(Literal::Integer(i64::MIN))
    );
    assert_eq!(
        expr("'it''s'").kind,
        ExprKind::Literal(Literal::Text("it's".into()))
    );
    assert_eq!(
        expr("x'00ff'").kind,
        ExprKind::Literal(Literal::Blob(vec![0, 255]))
    );
    assert_eq!(expr("TRUE").kind, ExprKind::Literal(Literal::Bool(true)));
    assert_eq!(expr("false").kind, ExprKind::Literal(Literal::Bool(false)));
    assert_eq!(expr("NULL").kind, ExprKind::Literal(Literal::Null));
    assert_eq!(
        expr("current_timestamp").kind,
        ExprKind::Literal(Literal::CurrentTimestamp)
    );
    let ExprKind::Unary {
        op: UnaryOp::Neg, ..
    } = expr("-1").kind
    else {
        panic!("-1 is a negation")
    };
    let ExprKind::Binary {
        op: BinaryOp::Eq, ..
    } = expr("a == 1").kind
    else {
        panic!("== is Eq")
    };
}

#[test]
fn double_quoted_columns_are_flagged() {
    let ExprKind::Column(c) = expr("\"abc\"").kind else {
        panic!("column")
    };
    assert!(c.double_quoted);
    let ExprKind::Column(c) = expr("[abc]").kind else {
        panic!("column")
    };
    assert!(!c.double_quoted);
}

#[test]
fn parameters_are_numbered_like_sqlite() {
    let parsed = parse_next("SELECT ?, ?5, ?, :a, @b, :a, $c, ?2", 0)
        .expect("parses")
        .expect("a statement");
    let names: Vec<Option<&str>> = parsed.params.iter().map(|p| p.as_deref()).collect();
    // `?` is 1, `?5` is 5 (2 to 4 stay unnamed until `?2` names 2), the next
    // `?` is 6, `:a` 7, `@b` 8, `:a` again 7, `$c` 9.
    let expected = vec![
        None,
        Some("?2"),
        None,
        None,
        Some("?5"),
        None,
        Some(":a"),
        Some("@b"),
        Some("$c"),
    ];
    assert_eq!(names, expected);
    let Statement::Select(select) = parsed.statement else {
        panic!("select")
    };
    let crate::sql::ast::SelectCore::Select(core) = select.first else {
        panic!("core")
    };
    let indexes: Vec<u32> = core
        .columns
        .iter()
        .map(|c| match c {
            crate::sql::ast::ResultColumn::Expr { expr: e, .. } => match e.kind {
                ExprKind::Param { index, .. } => index,
                _ => 0,
            },
            _ => 0,
        })
        .collect();
    assert_eq!(indexes, vec![1, 5, 6, 7, 8, 7, 9, 2]);
}

#[test]
fn statements_separated_by_semicolons() {
    let sql = "  ; SELECT 1; ;; -- c\n SELECT 2 /* x */";
    let first = parse_next(sql, 0).expect("ok").expect("first");
    assert_eq!(&sql[first.start..first.end], "SELECT 1;");
    let second = parse_next(sql, first.end).expect("ok").expect("second");
    assert_eq!(second.start, sql.find("SELECT 2").expect("present"));
    assert_eq!(second.end, sql.len());
    assert!(parse_next(sql, second.end).expect("ok").is_none());
    assert!(matches!(one("VALUES (1), (2)"), Statement::Select(_)));
}
