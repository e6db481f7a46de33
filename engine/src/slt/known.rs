//! The known-failures list: records an engine is known to fail, so a run
//! fails only on news.
//!
//! The list is a text file, one entry a line, `path:line  reason`, where
//! `path` is the file as the runner prints it and `line` the record's
//! `statement`/`query` line; `#` lines and blank lines are ignored. A run
//! is clean when every failing record is listed and every listed record of
//! a file that ran still fails: a listed record that passes is a *stale
//! entry* and must be removed, so the list only ever shrinks by intent.
//! Entries of files that did not run are left alone (a partial run judges
//! only its own files). Paths may not contain whitespace.

use std::collections::{BTreeMap, BTreeSet};

use super::run::{Failure, FileReport};

/// The reason given to a failure that enters the list by regeneration.
const UNCLASSIFIED: &str = "unclassified";

/// The header written at the top of a regenerated list.
const HEADER: &str = "\
# Records of the sqllogictest corpus that TinyJoin is known to fail.
# One entry a line: <path>:<line>  <reason>, with <path> as tinyjoin-slt
# prints it (relative to the directory it runs in). The runner fails on a
# failure missing here and on an entry whose record now passes (stale).
# Regenerate with --write-known-failures; then replace \"unclassified\" by
# a short cause.
";

/// A parsed known-failures list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KnownFailures {
    entries: BTreeMap<(String, usize), String>,
}

/// How a run compares with the list.
#[derive(Debug, Default)]
pub struct Verdict<'r> {
    /// Failures not in the list, with their file.
    pub unexpected: Vec<(&'r str, &'r Failure)>,
    /// Listed records of files that ran which did not fail: (path, line, reason).
    pub stale: Vec<(String, usize, String)>,
    /// Failures that are in the list.
    pub known: usize,
}

impl Verdict<'_> {
    /// No unexpected failure and no stale entry.
    pub fn is_clean(&self) -> bool {
        self.unexpected.is_empty() && self.stale.is_empty()
    }
}

impl KnownFailures {
    /// Parses a list; an entry that is not `path:line ...` is an error
    /// naming its line.
    pub fn parse(text: &str) -> Result<KnownFailures, String> {
        let mut entries = BTreeMap::new();
        for (index, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (location, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            let parsed = location
                .rsplit_once(':')
                .and_then(|(path, number)| Some((path.to_string(), number.parse::<usize>().ok()?)));
            let Some(key) = parsed else {
                return Err(format!(
                    "line {}: expected `path:line  reason`, got {raw:?}",
                    index + 1
                ));
            };
            let reason = reason.trim();
            entries.insert(
                key,
                if reason.is_empty() {
                    UNCLASSIFIED.to_string()
                } else {
                    reason.to_string()
                },
            );
        }
        Ok(KnownFailures { entries })
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the list has no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether the record at `path:line` is listed.
    pub fn contains(&self, path: &str, line: usize) -> bool {
        self.entries.contains_key(&(path.to_string(), line))
    }

    /// Compares the reports of a run with the list.
    pub fn judge<'r>(&self, reports: &'r [FileReport]) -> Verdict<'r> {
        let mut verdict = Verdict::default();
        for report in reports {
            let failing: BTreeSet<usize> = report.failures.iter().map(|f| f.line).collect();
            for failure in &report.failures {
                if self.contains(&report.path, failure.line) {
                    verdict.known += 1;
                } else {
                    verdict.unexpected.push((&report.path, failure));
                }
            }
            let listed = self
                .entries
                .range((report.path.clone(), 0)..=(report.path.clone(), usize::MAX));
            for ((path, line), reason) in listed {
                if !failing.contains(line) {
                    verdict.stale.push((path.clone(), *line, reason.clone()));
                }
            }
        }
        verdict
    }

    /// The list after a run: entries of the files that ran are replaced by
    /// their failures (keeping the reasons already written, new ones
    /// `unclassified`); entries of other files stay.
    pub fn updated(&self, reports: &[FileReport]) -> KnownFailures {
        let ran: BTreeSet<&str> = reports.iter().map(|r| r.path.as_str()).collect();
        let mut entries: BTreeMap<(String, usize), String> = self
            .entries
            .iter()
            .filter(|((path, _), _)| !ran.contains(path.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for report in reports {
            for failure in &report.failures {
                let key = (report.path.clone(), failure.line);
                let reason = self
                    .entries
                    .get(&key)
                    .cloned()
                    .unwrap_or_else(|| UNCLASSIFIED.to_string());
                entries.insert(key, reason);
            }
        }
        KnownFailures { entries }
    }

    /// The list as file text, with its header.
    pub fn render(&self) -> String {
        let mut text = HEADER.to_string();
        for ((path, line), reason) in &self.entries {
            text.push_str(&format!("{path}:{line}  {reason}\n"));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(path: &str, failing_lines: &[usize]) -> FileReport {
        let failures = failing_lines
            .iter()
            .map(|&line| Failure {
                line,
                reason: "wrong".into(),
                detail: String::new(),
                sql: String::new(),
            })
            .collect();
        FileReport {
            path: path.into(),
            failed: failing_lines.len(),
            failures,
            ..FileReport::default()
        }
    }

    #[test]
    fn parse_and_render_round_trip() {
        let text = "# c\n\na/b.test:12  needs window functions\nc.test:3\n";
        let list = KnownFailures::parse(text).expect("valid list");
        assert_eq!(list.len(), 2);
        assert!(list.contains("a/b.test", 12) && list.contains("c.test", 3));
        let again = KnownFailures::parse(&list.render()).expect("rendered list parses");
        assert_eq!(again, list);
        assert!(again.render().contains("c.test:3  unclassified\n"));
        assert!(KnownFailures::parse("nonsense here\n").is_err());
        assert!(KnownFailures::parse("a.test:x  why\n").is_err());
    }

    #[test]
    fn judge_finds_unexpected_known_and_stale() {
        let list =
            KnownFailures::parse("a.test:5  x\na.test:9  y\nb.test:1  z\n").expect("valid list");
        let reports = [report("a.test", &[5, 7])];
        let verdict = list.judge(&reports);
        assert_eq!(verdict.known, 1);
        assert_eq!(
            verdict
                .unexpected
                .iter()
                .map(|(p, f)| (*p, f.line))
                .collect::<Vec<_>>(),
            vec![("a.test", 7)]
        );
        // b.test did not run, so its entry is not stale.
        assert_eq!(
            verdict.stale,
            vec![("a.test".to_string(), 9, "y".to_string())]
        );
        assert!(!verdict.is_clean());
        assert!(list.judge(&[report("a.test", &[5, 9])]).is_clean());
    }

    #[test]
    fn updated_keeps_reasons_and_other_files() {
        let list =
            KnownFailures::parse("a.test:5  x\na.test:9  y\nb.test:1  z\n").expect("valid list");
        let updated = list.updated(&[report("a.test", &[5, 7])]);
        let expected = KnownFailures::parse("a.test:5  x\na.test:7  unclassified\nb.test:1  z\n")
            .expect("valid list");
        assert_eq!(updated, expected);
    }
}
