//! Queries: WITH, SELECT and VALUES cores, compounds, result columns, FROM
//! and joins, ORDER BY, LIMIT, and window definitions.

use crate::error::Result;
use crate::sql::ast::{
    CompoundOperator, Cte, Expr, Frame, FrameBound, FrameExclude, FrameUnits, FromClause, Indexed,
    Join, JoinConstraint, JoinKind, JoinOperator, Limit, NamedWindow, NullsOrder, OrderingTerm,
    ResultColumn, Select, SelectClause, SelectCore, SortOrder, TableOrSubquery, WindowSpec, With,
};
use crate::sql::lexer::{Keyword, TokenKind};

use super::cursor::Parser;

/// The most SELECT cores a compound may join (SQLite's
/// SQLITE_MAX_COMPOUND_SELECT): binding and running a compound recurse
/// once per term, and the parser, which reads them in a loop, is where
/// the bound is cheap to keep.
const MAX_COMPOUND_TERMS: usize = 500;

impl<'a> Parser<'a> {
    /// A full query: `[WITH ..] core [op core]* [ORDER BY ..] [LIMIT ..]`.
    pub(super) fn select(&mut self) -> Result<Select> {
        self.enter()?;
        let pos = self.pos();
        let with = if self.is_kw(Keyword::With) {
            Some(self.with()?)
        } else {
            None
        };
        let select = self.select_after_with(with, pos)?;
        self.leave(1);
        Ok(select)
    }

    /// The rest of a query whose WITH clause (if any) is already parsed.
    pub(super) fn select_after_with(&mut self, with: Option<With>, pos: usize) -> Result<Select> {
        let first = self.select_core()?;
        let mut compounds = Vec::new();
        loop {
            let op = match self.peek() {
                TokenKind::Keyword(Keyword::Union) => {
                    self.advance();
                    if self.eat_kw(Keyword::All) {
                        CompoundOperator::UnionAll
                    } else {
                        CompoundOperator::Union
                    }
                }
                TokenKind::Keyword(Keyword::Intersect) => {
                    self.advance();
                    CompoundOperator::Intersect
                }
                TokenKind::Keyword(Keyword::Except) => {
                    self.advance();
                    CompoundOperator::Except
                }
                _ => break,
            };
            if compounds.len() + 1 >= MAX_COMPOUND_TERMS {
                return Err(self.error_at(self.pos(), "too many terms in compound SELECT"));
            }
            compounds.push((op, self.select_core()?));
        }
        // In SQLite's grammar ORDER BY and LIMIT belong to a SELECT core, so
        // a query whose last core is VALUES takes neither (`VALUES (1)
        // ORDER BY 1` is a syntax error there too).
        let last = compounds.last().map_or(&first, |(_, core)| core);
        if matches!(last, SelectCore::Values { .. }) {
            return Ok(Select {
                with,
                first,
                compounds,
                order_by: Vec::new(),
                limit: None,
                pos,
            });
        }
        let order_by = if self.is_kw(Keyword::Order) {
            self.order_by()?
        } else {
            Vec::new()
        };
        let limit = self.limit()?;
        Ok(Select {
            with,
            first,
            compounds,
            order_by,
            limit,
            pos,
        })
    }

    /// `WITH [RECURSIVE] name [(cols)] AS [[NOT] MATERIALIZED] (select), ...`.
    pub(super) fn with(&mut self) -> Result<With> {
        let pos = self.expect_kw(Keyword::With)?.start;
        let recursive = self.eat_kw(Keyword::Recursive);
        let mut ctes = Vec::new();
        loop {
            let cte_pos = self.pos();
            let name = self.name()?;
            let columns = if self.peek() == TokenKind::LParen {
                self.name_list()?
            } else {
                Vec::new()
            };
            self.expect_kw(Keyword::As)?;
            let materialized = if self.eat_kw(Keyword::Materialized) {
                Some(true)
            } else if self.is_kw(Keyword::Not) && self.is_kw_at(1, Keyword::Materialized) {
                self.advance();
                self.advance();
                Some(false)
            } else {
                None
            };
            self.expect(TokenKind::LParen)?;
            let select = Box::new(self.select()?);
            self.expect(TokenKind::RParen)?;
            ctes.push(Cte {
                name,
                columns,
                materialized,
                select,
                pos: cte_pos,
            });
            if !self.eat(TokenKind::Comma) {
                return Ok(With {
                    recursive,
                    ctes,
                    pos,
                });
            }
        }
    }

    /// One `SELECT ...` or `VALUES ...` core.
    fn select_core(&mut self) -> Result<SelectCore> {
        let pos = self.pos();
        if self.eat_kw(Keyword::Values) {
            return Ok(SelectCore::Values {
                rows: self.values_rows()?,
                pos,
            });
        }
        self.expect_kw(Keyword::Select)?;
        let distinct = self.eat_kw(Keyword::Distinct);
        if !distinct {
            self.eat_kw(Keyword::All);
        }
        let columns = self.result_columns()?;
        let from = if self.eat_kw(Keyword::From) {
            Some(self.from()?)
        } else {
            None
        };
        let where_clause = if self.eat_kw(Keyword::Where) {
            Some(self.expr()?)
        } else {
            None
        };
        let mut group_by = Vec::new();
        if self.eat_kw(Keyword::Group) {
            self.expect_kw(Keyword::By)?;
            group_by = self.expr_list()?;
        }
        let having = if self.eat_kw(Keyword::Having) {
            Some(self.expr()?)
        } else {
            None
        };
        let mut windows = Vec::new();
        if self.at_window_clause() {
            self.advance();
            loop {
                let pos = self.pos();
                let name = self.name()?;
                self.expect_kw(Keyword::As)?;
                self.expect(TokenKind::LParen)?;
                windows.push(NamedWindow {
                    name,
                    spec: self.window_spec()?,
                    pos,
                });
                if !self.eat(TokenKind::Comma) {
                    break;
                }
            }
        }
        let clause = SelectClause {
            distinct,
            columns,
            from,
            where_clause,
            group_by,
            having,
            windows,
            pos,
        };
        Ok(SelectCore::Select(Box::new(clause)))
    }

    /// The rows after `VALUES`: `(e, ..), (e, ..)`, all of one length.
    pub(super) fn values_rows(&mut self) -> Result<Vec<Vec<Expr>>> {
        let mut rows: Vec<Vec<Expr>> = Vec::new();
        loop {
            let row_pos = self.expect(TokenKind::LParen)?.start;
            let row = self.expr_list()?;
            self.expect(TokenKind::RParen)?;
            if rows.first().is_some_and(|first| first.len() != row.len()) {
                return Err(self.error_at(row_pos, "all VALUES must have the same number of terms"));
            }
            rows.push(row);
            if !self.eat(TokenKind::Comma) {
                break;
            }
        }
        Ok(rows)
    }

    /// A result column list (SELECT and RETURNING).
    pub(super) fn result_columns(&mut self) -> Result<Vec<ResultColumn>> {
        let mut columns = vec![self.result_column()?];
        while self.eat(TokenKind::Comma) {
            columns.push(self.result_column()?);
        }
        Ok(columns)
    }

    fn result_column(&mut self) -> Result<ResultColumn> {
        let pos = self.pos();
        if self.eat(TokenKind::Star) {
            return Ok(ResultColumn::Star { pos });
        }
        let time_keyword = matches!(
            self.peek(),
            TokenKind::Keyword(
                Keyword::CurrentTime | Keyword::CurrentDate | Keyword::CurrentTimestamp
            )
        );
        if self.at_name()
            && !time_keyword
            && self.peek_at(1) == TokenKind::Dot
            && self.peek_at(2) == TokenKind::Star
        {
            let table = self.name()?;
            self.advance();
            self.advance();
            return Ok(ResultColumn::TableStar { table, pos });
        }
        let expr = self.expr()?;
        let text = self.sql[pos..self.prev_end()].to_string();
        let alias = self.alias()?;
        Ok(ResultColumn::Expr { expr, alias, text })
    }

    /// A FROM clause: a table or subquery, then joins.
    pub(super) fn from(&mut self) -> Result<FromClause> {
        let first = self.table_or_subquery()?;
        // SQLite's grammar takes ON/USING after any FROM item, then rejects
        // them on the first; so does this (which also makes
        // `INSERT .. SELECT .. FROM t ON CONFLICT ..` an error, as there).
        if self.is_kw(Keyword::On) || self.is_kw(Keyword::Using) {
            let word = self.text(self.tok()).to_ascii_uppercase();
            return Err(self.error_at(
                self.pos(),
                format!("a JOIN clause is required before {word}"),
            ));
        }
        let mut joins = Vec::new();
        while let Some((operator, pos)) = self.join_operator()? {
            let table = self.table_or_subquery()?;
            let constraint = if self.eat_kw(Keyword::On) {
                Some(JoinConstraint::On(self.expr()?))
            } else if self.eat_kw(Keyword::Using) {
                Some(JoinConstraint::Using(self.name_list()?))
            } else {
                None
            };
            joins.push(Join {
                operator,
                table,
                constraint,
                pos,
            });
        }
        Ok(FromClause { first, joins })
    }

    /// A join operator at the cursor, if any: `,`, `JOIN`, or up to three
    /// of NATURAL, LEFT, RIGHT, FULL, OUTER, INNER, CROSS before `JOIN`, in
    /// any combination SQLite accepts (`sqlite3JoinType`: not INNER or
    /// CROSS with an outer join, and OUTER only with LEFT, RIGHT or FULL).
    fn join_operator(&mut self) -> Result<Option<(JoinOperator, usize)>> {
        let pos = self.pos();
        if self.eat(TokenKind::Comma) {
            return Ok(Some((
                JoinOperator {
                    natural: false,
                    kind: JoinKind::Comma,
                },
                pos,
            )));
        }
        let (mut natural, mut left, mut right, mut outer, mut inner, mut cross) =
            (false, false, false, false, false, false);
        // SQLite's grammar reads up to three words before JOIN, the first a
        // join keyword, the others any names, and only then judges them.
        let (mut words, mut unknown_words) = (0, false);
        while words < 3 {
            match self.peek() {
                TokenKind::Keyword(Keyword::Natural) => natural = true,
                TokenKind::Keyword(Keyword::Left) => left = true,
                TokenKind::Keyword(Keyword::Right) => right = true,
                TokenKind::Keyword(Keyword::Full) => (left, right) = (true, true),
                TokenKind::Keyword(Keyword::Outer) => outer = true,
                TokenKind::Keyword(Keyword::Inner) => inner = true,
                TokenKind::Keyword(Keyword::Cross) => (inner, cross) = (true, true),
                TokenKind::Keyword(Keyword::Join) => break,
                _ if words > 0 && self.at_name() => unknown_words = true,
                _ => break,
            }
            self.advance();
            words += 1;
        }
        if words == 0 && !self.is_kw(Keyword::Join) {
            return Ok(None);
        }
        if !self.is_kw(Keyword::Join) {
            return Err(self.unexpected());
        }
        let outer_join = left || right || outer;
        if unknown_words || (inner && outer_join) || (outer && !left && !right) {
            let text = self.sql[pos..self.prev_end()].to_string();
            return Err(self.error_at(pos, format!("unknown join type: {text}")));
        }
        self.advance();
        let kind = match (left, right) {
            (true, true) => JoinKind::Full,
            (true, false) => JoinKind::Left,
            (false, true) => JoinKind::Right,
            _ if cross => JoinKind::Cross,
            _ => JoinKind::Inner,
        };
        Ok(Some((JoinOperator { natural, kind }, pos)))
    }

    /// One FROM item: a table, a table-valued function, a subquery, or a
    /// parenthesised join.
    fn table_or_subquery(&mut self) -> Result<TableOrSubquery> {
        let pos = self.pos();
        if self.eat(TokenKind::LParen) {
            self.enter()?;
            let item = if self.at_select_start() {
                let select = Box::new(self.select()?);
                self.expect(TokenKind::RParen)?;
                let alias = self.alias()?;
                TableOrSubquery::Subquery { select, alias, pos }
            } else {
                let from = self.from()?;
                self.expect(TokenKind::RParen)?;
                let alias = self.alias()?;
                nested_from(from, alias, pos)
            };
            self.leave(1);
            return Ok(item);
        }
        let name = self.qualified_name()?;
        if self.eat(TokenKind::LParen) {
            let args = if self.peek() == TokenKind::RParen {
                Vec::new()
            } else {
                self.expr_list()?
            };
            self.expect(TokenKind::RParen)?;
            let alias = self.alias()?;
            return Ok(TableOrSubquery::Function { name, args, alias });
        }
        let alias = self.alias()?;
        let indexed = self.indexed()?;
        Ok(TableOrSubquery::Table {
            name,
            alias,
            indexed,
        })
    }

    /// `INDEXED BY name` or `NOT INDEXED`, if present.
    pub(super) fn indexed(&mut self) -> Result<Option<Indexed>> {
        if self.eat_kw(Keyword::Indexed) {
            self.expect_kw(Keyword::By)?;
            return Ok(Some(Indexed::By(self.name()?)));
        }
        if self.is_kw(Keyword::Not) && self.is_kw_at(1, Keyword::Indexed) {
            self.advance();
            self.advance();
            return Ok(Some(Indexed::NotIndexed));
        }
        Ok(None)
    }

    /// `ORDER BY term, ...`, the cursor on ORDER.
    pub(super) fn order_by(&mut self) -> Result<Vec<OrderingTerm>> {
        self.expect_kw(Keyword::Order)?;
        self.expect_kw(Keyword::By)?;
        let mut terms = vec![self.ordering_term()?];
        while self.eat(TokenKind::Comma) {
            terms.push(self.ordering_term()?);
        }
        Ok(terms)
    }

    fn ordering_term(&mut self) -> Result<OrderingTerm> {
        let expr = self.expr()?;
        let order = self.sort_order();
        let nulls = if self.eat_kw(Keyword::Nulls) {
            if self.eat_kw(Keyword::First) {
                Some(NullsOrder::First)
            } else {
                self.expect_kw(Keyword::Last)?;
                Some(NullsOrder::Last)
            }
        } else {
            None
        };
        Ok(OrderingTerm { expr, order, nulls })
    }

    /// `ASC` or `DESC`, if present.
    pub(super) fn sort_order(&mut self) -> Option<SortOrder> {
        if self.eat_kw(Keyword::Asc) {
            Some(SortOrder::Asc)
        } else if self.eat_kw(Keyword::Desc) {
            Some(SortOrder::Desc)
        } else {
            None
        }
    }

    /// `LIMIT e [OFFSET e | , e]`, if present.
    fn limit(&mut self) -> Result<Option<Limit>> {
        if !self.eat_kw(Keyword::Limit) {
            return Ok(None);
        }
        let first = self.expr()?;
        if self.eat_kw(Keyword::Offset) {
            return Ok(Some(Limit {
                limit: first,
                offset: Some(self.expr()?),
            }));
        }
        if self.eat(TokenKind::Comma) {
            // `LIMIT offset, count`: SQLite's (and MySQL's) order.
            return Ok(Some(Limit {
                limit: self.expr()?,
                offset: Some(first),
            }));
        }
        Ok(Some(Limit {
            limit: first,
            offset: None,
        }))
    }

    /// A window specification after its `(`, through the closing `)`.
    pub(super) fn window_spec(&mut self) -> Result<WindowSpec> {
        self.enter()?;
        let at_clause = |p: &Self| {
            p.is_kw(Keyword::Partition)
                || p.is_kw(Keyword::Order)
                || p.is_kw(Keyword::Rows)
                || p.is_kw(Keyword::Range)
                || p.is_kw(Keyword::Groups)
        };
        let base = if self.at_name() && !at_clause(self) {
            Some(self.name()?)
        } else {
            None
        };
        let mut partition_by = Vec::new();
        if self.eat_kw(Keyword::Partition) {
            self.expect_kw(Keyword::By)?;
            partition_by = self.expr_list()?;
        }
        let order_by = if self.is_kw(Keyword::Order) {
            self.order_by()?
        } else {
            Vec::new()
        };
        let frame = self.frame()?;
        self.expect(TokenKind::RParen)?;
        self.leave(1);
        Ok(WindowSpec {
            base,
            partition_by,
            order_by,
            frame,
        })
    }

    /// A frame specification, if present.
    fn frame(&mut self) -> Result<Option<Frame>> {
        let units = match self.peek() {
            TokenKind::Keyword(Keyword::Rows) => FrameUnits::Rows,
            TokenKind::Keyword(Keyword::Range) => FrameUnits::Range,
            TokenKind::Keyword(Keyword::Groups) => FrameUnits::Groups,
            _ => return Ok(None),
        };
        self.advance();
        let (start, end) = if self.eat_kw(Keyword::Between) {
            let start = self.frame_bound(true)?;
            self.expect_kw(Keyword::And)?;
            (start, Some(self.frame_bound(false)?))
        } else {
            (self.frame_bound(true)?, None)
        };
        let exclude = if self.eat_kw(Keyword::Exclude) {
            Some(if self.eat_kw(Keyword::No) {
                self.expect_kw(Keyword::Others)?;
                FrameExclude::NoOthers
            } else if self.eat_kw(Keyword::Current) {
                self.expect_kw(Keyword::Row)?;
                FrameExclude::CurrentRow
            } else if self.eat_kw(Keyword::Group) {
                FrameExclude::Group
            } else {
                self.expect_kw(Keyword::Ties)?;
                FrameExclude::Ties
            })
        } else {
            None
        };
        Ok(Some(Frame {
            units,
            start,
            end,
            exclude,
        }))
    }

    /// One frame bound; UNBOUNDED PRECEDING only starts a frame and
    /// UNBOUNDED FOLLOWING only ends one (SQLite's `frame_bound_s`/`_e`).
    fn frame_bound(&mut self, is_start: bool) -> Result<FrameBound> {
        if self.eat_kw(Keyword::Unbounded) {
            if is_start {
                self.expect_kw(Keyword::Preceding)?;
                return Ok(FrameBound::UnboundedPreceding);
            }
            self.expect_kw(Keyword::Following)?;
            return Ok(FrameBound::UnboundedFollowing);
        }
        // In a frame bound CURRENT always starts CURRENT ROW (SQLite's
        // grammar gives it no fallback to a name here).
        if self.eat_kw(Keyword::Current) {
            self.expect_kw(Keyword::Row)?;
            return Ok(FrameBound::CurrentRow);
        }
        let expr = Box::new(self.expr()?);
        if self.eat_kw(Keyword::Preceding) {
            return Ok(FrameBound::Preceding(expr));
        }
        self.expect_kw(Keyword::Following)?;
        Ok(FrameBound::Following(expr))
    }
}

/// A parenthesised FROM list `( from ) [alias]` as one FROM item: a single
/// item is itself (taking the alias if it has none; SQLite flattens it the
/// same way), a join with an alias becomes `(SELECT * FROM join) AS alias`
/// (as SQLite builds it), and a join without one stays `Nested`.
fn nested_from(from: FromClause, alias: Option<String>, pos: usize) -> TableOrSubquery {
    if from.joins.is_empty() {
        let mut item = from.first;
        let slot = match &mut item {
            TableOrSubquery::Table { alias, .. }
            | TableOrSubquery::Function { alias, .. }
            | TableOrSubquery::Subquery { alias, .. } => Some(alias),
            TableOrSubquery::Nested { .. } => None,
        };
        match (slot, alias) {
            (_, None) => return item,
            (Some(slot @ None), Some(a)) => {
                *slot = Some(a);
                return item;
            }
            (_, Some(a)) => {
                return subquery_over(
                    FromClause {
                        first: item,
                        joins: Vec::new(),
                    },
                    a,
                    pos,
                )
            }
        }
    }
    match alias {
        Some(a) => subquery_over(from, a, pos),
        None => TableOrSubquery::Nested {
            from: Box::new(from),
            pos,
        },
    }
}

/// `(SELECT * FROM from) AS alias`.
fn subquery_over(from: FromClause, alias: String, pos: usize) -> TableOrSubquery {
    let clause = SelectClause {
        distinct: false,
        columns: vec![ResultColumn::Star { pos }],
        from: Some(from),
        where_clause: None,
        group_by: Vec::new(),
        having: None,
        windows: Vec::new(),
        pos,
    };
    let select = Select {
        with: None,
        first: SelectCore::Select(Box::new(clause)),
        compounds: Vec::new(),
        order_by: Vec::new(),
        limit: None,
        pos,
    };
    TableOrSubquery::Subquery {
        select: Box::new(select),
        alias: Some(alias),
        pos,
    }
}
