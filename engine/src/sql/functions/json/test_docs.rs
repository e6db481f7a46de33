//! Random JSON documents for the differential tests of the JSON functions
//! and of json_each / json_tree: canonical and JSON5 text (comments,
//! unquoted and single-quoted labels, hex, Infinity, trailing commas),
//! escapes, labels that need quoting in a path, arrays long enough for
//! multi-digit indexes, and each value's path.

use rand::rngs::SmallRng;
use rand::Rng;

/// A random JSON document: its text, and the paths of its elements.
pub(super) struct Doc {
    pub text: String,
    pub paths: Vec<String>,
}

/// Labels: as written in the document, and as a path step naming them.
const LABELS: &[(&str, &str)] = &[
    ("\"a\"", ".a"),
    ("\"b\"", ".b"),
    ("\"ab\"", ".ab"),
    ("\"a1\"", ".a1"),
    ("\"1a\"", ".\"1a\""),
    ("\"x y\"", ".\"x y\""),
    ("\"a.b\"", ".\"a.b\""),
    ("\"a[0]\"", ".\"a[0]\""),
    ("\"\"", ".\"\""),
    ("\"é\"", ".é"),
    ("\"A_b\"", ".A_b"),
    ("\"\\u0061\"", ".a"),
    ("\"q\\\"t\"", ".\"q\\\"t\""),
    ("\"t\\tab\"", ".\"t\\tab\""),
    ("\"\\ud83d\\ude00\"", ".\"😀\""),
];

/// Labels only JSON5 allows.
const JSON5_LABELS: &[(&str, &str)] = &[
    ("a", ".a"),
    ("$b", ".$b"),
    ("_c", "._c"),
    ("'s q'", ".\"s q\""),
    ("\\u0061b", ".ab"),
    ("'it\\'s'", ".\"it's\""),
];

const SCALARS: &[&str] = &[
    "null",
    "true",
    "false",
    "0",
    "-0",
    "7",
    "-42",
    "1.5",
    "1.50",
    "-0.0",
    "1e5",
    "2E-3",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "1e400",
    "\"\"",
    "\"s\"",
    "\"x\\ny\"",
    "\"\\u0041\\u00e9\"",
    "\"q\\\"\\\\\"",
    "\"é😀\"",
    "\"\\ud83d\\ude00\"",
    "\"\\ud800\"",
];

const JSON5_SCALARS: &[&str] = &[
    "0x1F",
    "-0xab",
    "0x8000000000000000",
    "+3",
    ".5",
    "5.",
    "-.5",
    "Infinity",
    "-Infinity",
    "NaN",
    "'sq'",
    "'d\"q'",
    "\"\\x41\"",
    "\"a\\'b\"",
    "\"\t\"",
    "'\\\nx'",
    "\"\\v\\0\"",
];

/// Appends a random value at `path` (depth-limited).
pub(super) fn gen_value(
    rng: &mut SmallRng,
    depth: u32,
    json5: bool,
    path: &str,
    out: &mut String,
    paths: &mut Vec<String>,
) {
    paths.push(path.to_string());
    let ws = |rng: &mut SmallRng, out: &mut String| match rng.gen_range(0..14) {
        0 => out.push(' '),
        1 => out.push('\n'),
        2 if json5 => out.push_str("/*c*/"),
        3 if json5 => out.push('\u{a0}'),
        _ => {}
    };
    let kind = if depth >= 5 { 0 } else { rng.gen_range(0..5) };
    match kind {
        0 | 1 => {
            let pool = if json5 && rng.gen_bool(0.3) {
                JSON5_SCALARS
            } else {
                SCALARS
            };
            out.push_str(pool[rng.gen_range(0..pool.len())]);
        }
        2 | 3 => {
            out.push('[');
            let n = rng.gen_range(0..if depth < 2 { 14 } else { 4 });
            for k in 0..n {
                if k > 0 {
                    out.push(',');
                }
                ws(rng, out);
                gen_value(rng, depth + 1, json5, &format!("{path}[{k}]"), out, paths);
                ws(rng, out);
            }
            if json5 && n > 0 && rng.gen_bool(0.2) {
                out.push(',');
            }
            out.push(']');
        }
        _ => {
            out.push('{');
            let n = rng.gen_range(0..5);
            for k in 0..n {
                if k > 0 {
                    out.push(',');
                }
                ws(rng, out);
                let (label, step) = if json5 && rng.gen_bool(0.3) {
                    JSON5_LABELS[rng.gen_range(0..JSON5_LABELS.len())]
                } else {
                    LABELS[rng.gen_range(0..LABELS.len())]
                };
                out.push_str(label);
                ws(rng, out);
                out.push(':');
                ws(rng, out);
                gen_value(rng, depth + 1, json5, &format!("{path}{step}"), out, paths);
            }
            if json5 && n > 0 && rng.gen_bool(0.2) {
                out.push(',');
            }
            out.push('}');
        }
    }
}
