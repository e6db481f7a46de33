// Times the engine alone compiled to wasm in Node 20 (V8, like Chromium):
// each sample is a fresh process that builds the comparison's join dataset
// (s, f, u: 10,000 / 200,000 / 402,000 rows, two indexes) in memory, then
// opens a copy of its bytes with full validation (the package's default)
// and runs J2 (a selective join: 2,000 rows fetched through an index) and
// J5 (a point join) from their SQL text, then after the second open J4 (a
// three-way join: 402,000 rows of u, each finding its f row by id) twice
// and three rounds of the same 10,000 prepared point lookups of f by id,
// then after the third open three UPDATEs of f's indexed column s_id, each
// over 10,000 rows (I8's shape; the first runs the UPDATE code cold), and
// three rounds of 200 autocommit single-row INSERTs into a fresh table
// (the durable row's engine work, each a one-flush commit on a memory device),
// and five of the comparison's 1,000-operation mixed transactions, each on a
// fresh table of 1,000 rows (the first runs the UPDATE and DELETE code cold).
// A tool, not a test: nothing is asserted about time. Less noisy than the
// browser for A/B comparisons of wasm-specific code; V8 flags pass through
// (--no-liftoff: optimized code only; --liftoff --no-wasm-tier-up: the
// baseline tier only; --wasm-tiering-budget=13000000: Chromium 156's budget
// before V8 optimizes a function, Node 20's being 1800000, for first runs
// that behave as in the browser; --v8-pool-size=1: one compile thread).
//
// Build: cargo build --release --target wasm32-unknown-unknown \
//          --manifest-path engine/wasm-bench/Cargo.toml
// Run:   node engine/wasm-bench/run.mjs [--samples=5] [--wasm=FILE] [-- V8 flags]
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const here = new URL(".", import.meta.url).pathname;
const argv = process.argv.slice(2);
const dash = argv.indexOf("--");
const own = dash < 0 ? argv : argv.slice(0, dash);
const v8flags = dash < 0 ? [] : argv.slice(dash + 1);
const opt = (name, dflt) => (own.find((a) => a.startsWith(`--${name}=`)) ?? `--${name}=${dflt}`).slice(name.length + 3);
const wasm = opt("wasm", `${here}target/wasm32-unknown-unknown/release/tinyjoin_wasm_bench.wasm`);

if (process.env.TJ_WASM_BENCH_CHILD === "1") {
  const { instance } = await WebAssembly.instantiate(readFileSync(wasm), {});
  const x = instance.exports;
  if (x.build_image() === 0) throw new Error("building the dataset failed");
  const time = (f) => {
    const t0 = performance.now();
    f();
    return performance.now() - t0;
  };
  const check = (ok) => {
    if (!ok) throw new Error("a call failed");
  };
  const r = { opens: [], j2: [], j5first: 0, j5each: 0, j4: [], lookups: [], updates: [], durable: [], mixed: [] };
  for (let i = 0; i < 4; i++) {
    r.opens.push(time(() => check(x.open() === 1)));
    if (i === 0) {
      r.j2.push(time(() => check(x.query(0) === 1)));
      r.j2.push(time(() => check(x.query(0) === 1)));
      r.j5first = time(() => check(x.query(1) === 1));
      r.j5each = (time(() => { for (let k = 0; k < 1000; k++) check(x.query(1) === 1); }) * 1000) / 1000;
    }
    if (i === 1) {
      for (let k = 0; k < 2; k++) r.j4.push(time(() => check(x.query(2) === 100)));
      for (let k = 0; k < 3; k++) r.lookups.push(time(() => check(x.lookups(10_000) === 10_000)));
    }
    if (i === 2) {
      for (let k = 0; k < 3; k++) r.updates.push(time(() => check(x.update(k) === 10_000)));
      for (let k = 0; k < 3; k++) r.durable.push(time(() => check(x.durable(k, 200) === 200)));
      for (let k = 0; k < 5; k++) check(x.mixed_setup(k, 1000) === 1000);
      for (let k = 0; k < 5; k++) r.mixed.push(time(() => check(x.mixed_run(k, 1000) === 1000)));
    }
  }
  console.log(JSON.stringify(r));
} else {
  const samples = Number(opt("samples", 5));
  const rows = [];
  for (let s = 0; s < samples; s++) {
    const p = spawnSync(process.execPath, [...v8flags, new URL(import.meta.url).pathname, ...own], {
      env: { ...process.env, TJ_WASM_BENCH_CHILD: "1" },
      encoding: "utf8",
    });
    if (p.status !== 0) throw new Error(`sample ${s + 1} failed: ${p.stderr}`);
    rows.push(JSON.parse(p.stdout.trim().split("\n").pop()));
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const fmt = (xs) => `${med(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)})`;
  console.log(`${wasm}; V8 flags: ${v8flags.join(" ") || "(defaults)"}; ${samples} processes, median (min-max):`);
  console.log(`  first open (full validation), ms   ${fmt(rows.map((r) => r.opens[0]))}`);
  console.log(`  later opens, ms                    ${fmt(rows.flatMap((r) => r.opens.slice(1)))}`);
  console.log(`  J2 first run after the open, ms    ${fmt(rows.map((r) => r.j2[0]))}`);
  console.log(`  J2 second run, ms                  ${fmt(rows.map((r) => r.j2[1]))}`);
  console.log(`  J5 first run (after J2), ms        ${fmt(rows.map((r) => r.j5first))}`);
  console.log(`  J5 from its SQL text, µs per query ${fmt(rows.map((r) => r.j5each))}`);
  console.log(`  J4 first run (second open), ms     ${fmt(rows.map((r) => r.j4[0]))}`);
  console.log(`  J4 second run, ms                  ${fmt(rows.map((r) => r.j4[1]))}`);
  for (let k = 0; k < 3; k++) {
    console.log(`  10k point lookups, round ${k + 1}, ms     ${fmt(rows.map((r) => r.lookups[k]))}`);
  }
  for (let k = 0; k < 3; k++) {
    console.log(`  UPDATE 10k rows' indexed column, round ${k + 1}, ms ${fmt(rows.map((r) => r.updates[k]))}`);
  }
  for (let k = 0; k < 3; k++) {
    console.log(`  200 autocommit INSERTs, round ${k + 1}, ms    ${fmt(rows.map((r) => r.durable[k]))}`);
  }
  for (let k = 0; k < 5; k++) {
    console.log(`  mixed transaction of 1,000 ops, round ${k + 1}, ms ${fmt(rows.map((r) => r.mixed[k]))}`);
  }
}
