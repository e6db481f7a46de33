#!/usr/bin/env node
// Side-by-side comparison of TinyJoin with SQLite WASM and PGlite in the same
// headless Chromium, on OPFS, with the same SQL text (issue 5).
//
//   node scripts/compare/run.mjs [--quick] [--reps=N] [--out=artifacts/compare.json] [--engines=a,b,...] [--only=storage,analytic,index,mixed]
//
// Engines, each in its own dedicated Worker (web/engine-worker.js):
//   tinyjoin                  the packaged client's in-worker API (tinyjoin/worker)
//   sqlite-{wal,truncate}-{normal,full}
//                             @sqlite.org/sqlite-wasm (version pinned in package.json)
//                             on its opfs-sahpool VFS; WAL after locking_mode=EXCLUSIVE;
//                             the modes the database reports are checked and recorded
//   pglite                    @electric-sql/pglite on OPFS (opfs-ahp)
// Workloads (web/workloads.js): storage (bulk insert, point lookups warm/cold,
// full scan warm/cold, 200 durable single-row transactions), the analytic and
// join queries A1-A3, J1-J7 (first run in a fresh Worker, and repeat), the
// index workloads I1-I10, the envelope's mixed transactions in the Worker and
// from the page (round trips included), and a physical-limit row: 200 bare
// write+flush calls on a sync access handle. The durable transactions also run
// on TinyJoin opened with commit: "two-flush" and with commit: "deferred", the
// in-Worker mixed transactions with commit: "deferred" (lines under the table).
//
// Rotating engine order, N repetitions (5 by default), min/median/max, the
// ratio of TinyJoin's median to the faster crash-safe SQLite mode's, and a
// verdict only when min-max ranges do not overlap. Every read's result is
// hashed; the run fails (exit 1) if engines disagree. Writes JSON and a
// markdown table (same name, .md). --quick is a smoke profile (small data,
// one repetition): it checks correctness and completion, never time.

import { join, resolve } from "node:path";
import { writeFile } from "node:fs/promises";
import { ROOT, cleanupAll, interrupted, compareDepVersion, ensureCompareDeps, environment, launchBrowser, openPage, parseArgs, serve, stats, snapshotTinyjoin, withTimeout, writeJson, fileHashes, COMPARE_DIR } from "./lib/harness.mjs";

const SCHEMA = "tinyjoin-compare/1";
const { flags } = parseArgs(process.argv.slice(2), ["quick", "reps", "out", "engines", "scale", "verbose", "only", "js-flags"]);
// --only=storage,analytic,index,mixed: just these groups, for a look during
// development (not the published table).
// --js-flags="--no-liftoff": V8 flags for the browser, a diagnostic (how much
// of a row is V8's baseline code); recorded in the output, never published.
const JS_FLAGS = flags["js-flags"] === undefined ? null : String(flags["js-flags"]);
const ONLY = flags.only ? new Set(String(flags.only).split(",")) : null;
const wanted = (group) => ONLY === null || ONLY.has(group);
const QUICK = flags.quick === true;
// --scale=tenth: a tenth of the data, for a faster look (not the published table).
const SCALE = QUICK ? "quick" : flags.scale === "tenth" ? "tenth" : "full";
const REPS = flags.reps !== undefined ? Number(flags.reps) : QUICK ? 1 : 5;
const OUT = resolve(flags.out ?? join(ROOT, "artifacts", QUICK ? "compare-quick.json" : "compare.json"));
const MD = OUT.replace(/\.json$/, "") + ".md";
const CALL_TIMEOUT_MS = 15 * 60_000;

const ALL_ENGINES = [
  // The package defaults: full validation at open, 16 MiB batch limit, 8,192-page cache.
  { id: "tinyjoin", spec: { engine: "tinyjoin", validation: "full" } },
  { id: "sqlite-wal-normal", spec: { engine: "sqlite", journal: "WAL", synchronous: "NORMAL" } },
  { id: "sqlite-wal-full", spec: { engine: "sqlite", journal: "WAL", synchronous: "FULL" } },
  { id: "sqlite-truncate-normal", spec: { engine: "sqlite", journal: "TRUNCATE", synchronous: "NORMAL" } },
  { id: "sqlite-truncate-full", spec: { engine: "sqlite", journal: "TRUNCATE", synchronous: "FULL" } },
  { id: "pglite", spec: { engine: "pglite", storage: "opfs-ahp" } },
];
const ENGINES = flags.engines ? ALL_ENGINES.filter((e) => String(flags.engines).split(",").includes(e.id)) : ALL_ENGINES;
const SQLITE_IDS = ENGINES.filter((e) => e.spec.engine === "sqlite").map((e) => e.id);
/** TinyJoin opened with commit: "two-flush", for the durable transactions only. */
const TWO_FLUSH = "tinyjoin-two-flush";
/** TinyJoin opened with commit: "deferred" (no flush at commit, as SQLite's WAL+NORMAL), for the durable and the in-Worker mixed transactions. */
const DEFERRED = "tinyjoin-deferred";

const QUERY_IDS = ["A1", "A2", "A3", "J1", "J2", "J3", "J4", "J5", "J6", "J7"];
const QUERY_LABELS = {
  A1: "A1 filter + sum",
  A2: "A2 GROUP BY, 100 groups",
  A3: "A3 arithmetic filter + aggregate",
  J1: "J1 join + GROUP BY",
  J2: "J2 selective filter on the small side",
  J3: "J3 = J2 written in a bad order",
  J4: "J4 three-way join + GROUP BY",
  J5: "J5 point join",
  J6: "J6 LEFT JOIN, unmatched rows",
  J7: "J7 join on a non-indexed column",
};
const INDEX_LABELS = {
  I1: "CREATE INDEX a(b)",
  I2: "CREATE INDEX a(d, c)",
  I3: "CREATE INDEX a(lower(e))",
  I4: "equality lookups, 200 rows each",
  I5: "range lookups, 1% each",
  I6: "composite lookups d = ? AND c > 500",
  I7: "expression lookups lower(e) = ?",
  I8: "UPDATE indexed column, 10k rows",
  I9: "DELETE 10k rows, 3 indexes",
  I10: "bulk insert 100k rows, 3 indexes",
};

function log(msg) {
  console.log(`compare: ${msg}`);
}

/** Results: rows[rowId] = { label, group, samples: { engine: [ms] }, hashes: { engine: [hash] } } */
const rows = {};
/** Workloads that failed: { engine, error }. */
const failures = [];
function record(rowId, label, group, engine, ms, hash) {
  rows[rowId] ??= { label, group, samples: {}, hashes: {} };
  (rows[rowId].samples[engine] ??= []).push(ms);
  if (hash !== undefined) (rows[rowId].hashes[engine] ??= []).push(hash);
}

async function main() {
  ensureCompareDeps(log);
  let runtime;
  let tinyjoinProblem = null;
  try {
    runtime = await snapshotTinyjoin();
  } catch (e) {
    tinyjoinProblem = e.message;
  }
  if (tinyjoinProblem !== null && ENGINES.some((e) => e.id === "tinyjoin")) {
    throw new Error(`TinyJoin cannot be measured: ${tinyjoinProblem}`);
  }
  const server = await serve({ "/pkg/": runtime ? runtime.dir : join(ROOT, "client-ts"), "/cmp/": join(COMPARE_DIR, "web"), "/nm/": join(COMPARE_DIR, "node_modules") });
  const browser = await launchBrowser("compare", JS_FLAGS);
  const pageLog = (m) => console.log(`  ${m}`);
  let exitCode = 1;
  try {
    const page = await openPage(browser.context, `${server.origin}/cmp/compare.html`, pageLog);
    const env = await environment(page);
    const ev = async (fn, arg, what) => {
      const r = await withTimeout(page.evaluate(fn, arg), CALL_TIMEOUT_MS, what);
      if (!r || !r.ok) throw new Error(`${what}: ${r ? r.message : "no result"}`);
      return r.value;
    };
    const engineInfo = {};
    const openMs = {};
    /** Runs `body(handle)` in a fresh Worker of engine `e` on database `name`. */
    const session = async (e, name, body) => {
      const s = await ev(([spec, n]) => window.spawn(spec, n), [e.spec, name], `${e.id}: open ${name}`);
      engineInfo[e.id] ??= s.info;
      (openMs[e.id] ??= []).push(s.openMs);
      try {
        return await body(s.handle);
      } finally {
        await ev(([h]) => window.kill(h), [s.handle], `${e.id}: close`);
      }
    };
    const workload = (e, handle, name, args) => progress(`${e.id}: ${name}${args ? " " + JSON.stringify(args) : ""}`, () => ev(([h, n, sc, a]) => window.call(h, "workload", { name: n, scale: sc, args: a }), [handle, name, SCALE, args], `${e.id}: ${name} ${args ? JSON.stringify(args) : ""}`));
    const ts = () => Date.now().toString(36);
    /** With --verbose, one line per workload call with its wall time. */
    const progress = async (what, fn) => {
      const t0 = Date.now();
      const r = await fn();
      if (flags.verbose) log(`  ${what}: ${Date.now() - t0} ms wall`);
      return r;
    };
    /** Runs `fn`; a failure is recorded for engine `e` (and fails the run at the end) instead of stopping the run. */
    const guard = async (e, fn) => {
      try {
        return await fn();
      } catch (err) {
        if (interrupted()) throw err;
        const message = String(err && err.message ? err.message : err).split("\n")[0];
        failures.push({ engine: e.id, error: message });
        log(`FAIL ${e.id}: ${message}`);
        return null;
      }
    };

    // Read-only dataset of the analytic and join queries: once per engine.
    const readDb = {};
    const loadMs = {};
    for (const e of wanted("analytic") ? ENGINES : []) {
      const name = `rd-${e.id}-${ts()}`;
      readDb[e.id] = name;
      const t0 = Date.now();
      const r = await session(e, name, (h) => workload(e, h, "buildReadDataset"));
      loadMs[e.id] = r.ms;
      record("load", "load the read dataset (812k rows, multi-row INSERT)", "setup", e.id, r.ms, r.hash);
      log(`${e.id}: read dataset loaded in ${(r.ms / 1000).toFixed(1)} s (${Date.now() - t0} ms wall)`);
    }

    /** Checks the hashes and writes the JSON and markdown (also after each repetition, marked incomplete). */
    const emit = async (complete) => {
      // Correctness: every engine must have returned identical results for every hashed row.
      const mismatches = [];
      for (const [id, row] of Object.entries(rows)) {
        const all = Object.entries(row.hashes);
        if (all.length === 0) continue;
        const ref = all[0][1][0];
        for (const [engine, hs] of all) for (const h of hs) if (h !== ref) mismatches.push(`${id} (${row.label}): ${engine} returned ${h.slice(0, 12)}…, ${all[0][0]} returned ${ref.slice(0, 12)}…`);
      }

      const table = summarize();
      const pkgs = { "@sqlite.org/sqlite-wasm": compareDepVersion("@sqlite.org/sqlite-wasm"), "@electric-sql/pglite": compareDepVersion("@electric-sql/pglite") };
      const out = {
        schema: SCHEMA,
        command: `node scripts/compare/run.mjs ${process.argv.slice(2).join(" ")}`.trim(),
        profile: SCALE,
        repetitions: REPS,
        complete: false,
        repetitionsDone: Math.max(0, ...Object.values(rows).map((r) => Math.max(0, ...Object.values(r.samples).map((v) => v.length)))),
        finished: new Date().toISOString(),
        environment: JS_FLAGS === null ? env : { ...env, jsFlags: JS_FLAGS },
        tinyjoin: { package: `${runtime.name}@${runtime.version}`, runtimeFiles: runtime.files },
        packages: pkgs,
        engineRuntimeFiles: {
          "@sqlite.org/sqlite-wasm": fileHashes(join(COMPARE_DIR, "node_modules/@sqlite.org/sqlite-wasm/dist"), (p) => /\.(m?js|wasm)$/.test(p)),
          "@electric-sql/pglite": fileHashes(join(COMPARE_DIR, "node_modules/@electric-sql/pglite/dist"), (p) => /(pglite\.(wasm|data|js)|index\.js|chunk-[A-Z0-9]+\.js|opfs-ahp\.js)$/.test(p)),
        },
        engines: Object.fromEntries(ENGINES.map((e) => [e.id, { spec: e.spec, info: engineInfo[e.id] ?? null }])),
        pageClients: { tinyjoin: engineInfo["tinyjoin (page)"] ?? null, others: "one postMessage round trip to the engine's Worker per statement" },
        openMs: Object.fromEntries(Object.entries(openMs).map(([k, v]) => [k, stats(v)])),
        identicalResults: mismatches.length === 0,
        failures,
        mismatches,
        rows: Object.fromEntries(Object.entries(rows).map(([id, r]) => [id, { ...r, stats: Object.fromEntries(Object.entries(r.samples).map(([k, v]) => [k, stats(v)])), summary: table.byRow[id] ?? null }])),
      };
      out.complete = complete;
      await writeJson(OUT, out);
      await writeFile(MD, markdown(out, table));
      return { out, mismatches };
    };
    const scale = SCALE === "quick" ? { mixed: [25, 100] } : { mixed: [25, 100, 250, 1000] };
    for (let rep = 0; rep < REPS; rep++) {
      const order = ENGINES.map((_, i) => ENGINES[(i + rep) % ENGINES.length]);
      log(`repetition ${rep + 1}/${REPS}: order ${order.map((e) => e.id).join(", ")}`);
      const t0 = Date.now();
      // Storage workloads.
      for (const e of wanted("storage") ? order : []) {
        const name = `st-${e.id}-${rep}-${ts()}`;
        await guard(e, () => session(e, name, async (h) => {
          let r = await workload(e, h, "bulkInsert");
          record("S1", "bulk insert 100k rows, one transaction", "storage", e.id, r.ms, r.hash);
          r = await workload(e, h, "durableTxns");
          record("S4", "200 single-row durable transactions", "storage", e.id, r.ms, r.hash);
          r = await workload(e, h, "pointLookups");
          record("S2w", "10k point lookups, warm", "storage", e.id, r.ms, r.hash);
          r = await workload(e, h, "fullScan");
          r = await workload(e, h, "fullScan");
          record("S3w", "full scan 100k rows, warm", "storage", e.id, r.ms, r.hash);
        }));
        await guard(e, () => session(e, name, async (h) => {
          const r = await workload(e, h, "pointLookups");
          record("S2c", "10k point lookups, cold (fresh Worker)", "storage", e.id, r.ms, r.hash);
        }));
        if (e.id === "tinyjoin") {
          // The same durable transactions with the open options commit:
          // "two-flush" and "deferred" (not the default, see the README):
          // lines under the table, not columns. Each after the same bulk
          // insert as the table's row (not recorded), so its Worker has run
          // the insert path as much as every engine's has there.
          for (const [id, commit, suffix] of [[TWO_FLUSH, "two-flush", "two"], [DEFERRED, "deferred", "deferred"]]) {
            const v = { id, spec: { ...e.spec, commit } };
            await guard(v, () => session(v, `${name}-${suffix}`, async (h) => {
              await workload(v, h, "bulkInsert");
              const r = await workload(v, h, "durableTxns");
              record("S4", "200 single-row durable transactions", "storage", v.id, r.ms, r.hash);
            }));
          }
        }
        await guard(e, () => session(e, name, async (h) => {
          const r = await workload(e, h, "fullScan");
          record("S3c", "full scan 100k rows, cold (fresh Worker)", "storage", e.id, r.ms, r.hash);
        }));
      }
      // Analytic and join queries: each in a fresh Worker, first run and repeat.
      for (const q of wanted("analytic") ? QUERY_IDS : []) {
        for (const e of order) {
          await guard(e, () => session(e, readDb[e.id], async (h) => {
            const r = await workload(e, h, "queryFirstAndRepeat", { query: q });
            record(`${q}-first`, `${QUERY_LABELS[q]}, first run`, "analytic", e.id, r.firstMs, r.hash);
            record(`${q}-repeat`, `${QUERY_LABELS[q]}, repeat`, "analytic", e.id, r.repeatMs, r.hash);
          }));
        }
      }
      // Index workloads.
      for (const e of wanted("index") ? order : []) {
        await guard(e, () => session(e, `ix-${e.id}-${rep}-${ts()}`, async (h) => {
          const r = await workload(e, h, "indexSuite");
          for (const [step, ms] of Object.entries(r.steps)) record(step, INDEX_LABELS[step], "index", e.id, ms, r.hashes[step]);
          record("I-state", "index workloads: final table state", "index-check", e.id, 0, r.hashes.state + r.hashes.indexed);
        }));
      }
      // Mixed transactions, in the Worker and from the page.
      for (const e of wanted("mixed") ? order : []) {
        // TinyJoin also with commit: "deferred", the durability of SQLite's
        // WAL+NORMAL: a line under the table, not a column.
        const variants = e.id === "tinyjoin" ? [e, { id: DEFERRED, spec: { ...e.spec, commit: "deferred" } }] : [e];
        for (const v of variants) {
          await guard(v, () => session(v, `mx-${v.id}-${rep}-${ts()}`, async (h) => {
            for (const n of scale.mixed) {
              const r = await workload(v, h, "mixedInWorker", { n });
              record(`M${n}`, `mixed transaction, ${n} ops, in the Worker`, "mixed", v.id, r.ms, r.hash);
            }
          }));
        }
        if (e.spec.engine === "tinyjoin") {
          await guard(e, async () => {
            const c = await ev(([nm]) => window.tjOpen(nm), [`pm-${rep}-${ts()}`], "tinyjoin: page open");
            try {
              for (const n of scale.mixed) {
                const r = await ev(([hh, k]) => window.pageMixedTinyJoin(hh, k), [c, n], `tinyjoin: page mixed ${n}`);
                engineInfo["tinyjoin (page)"] ??= r.info;
                record(`P${n}`, `mixed transaction, ${n} ops, from the page`, "mixed", e.id, r.ms, r.hash);
              }
            } finally {
              await ev(([hh]) => window.tjClose(hh), [c], "tinyjoin: page close");
            }
          });
        } else {
          await guard(e, () => session(e, `pm-${e.id}-${rep}-${ts()}`, async (h) => {
            for (const n of scale.mixed) {
              const r = await ev(([hh, k]) => window.pageMixed(hh, k), [h, n], `${e.id}: page mixed ${n}`);
              record(`P${n}`, `mixed transaction, ${n} ops, from the page`, "mixed", e.id, r.ms, r.hash);
            }
          }));
        }
      }
      // The physical limit: 200 bare write+flush calls on a sync access handle.
      const phys = await ev(([n]) => window.physical(n), [QUICK ? 20 : 200], "physical limit");
      record("PHYS", `${QUICK ? 20 : 200} bare write+flush calls on a sync access handle (physical limit)`, "physical", "opfs", phys.ms);
      await emit(false);
      log(`repetition ${rep + 1} done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }

    const { out, mismatches } = await emit(true);
    log(`wrote ${OUT} and ${MD}`);
    if (failures.length > 0) {
      console.error(`compare: ${failures.length} workload(s) FAILED:`);
      for (const f of failures) console.error(`  ${f.engine}: ${f.error}`);
    }
    if (mismatches.length > 0) {
      console.error(`compare: ENGINES DISAGREE on ${mismatches.length} result(s):`);
      for (const m of mismatches) console.error(`  ${m}`);
      exitCode = 1;
    } else if (failures.length > 0) {
      exitCode = 1;
    } else {
      log(`all engines returned identical results (${Object.values(rows).filter((r) => Object.keys(r.hashes).length > 0).length} hashed rows)`);
      exitCode = 0;
    }
  } finally {
    await browser.close();
    await server.close();
    await runtime?.remove();
  }
  if (interrupted()) await cleanupAll();
  else process.exit(exitCode);
}

/** Per row: TinyJoin vs the faster crash-safe SQLite mode (by median), ratio and verdict. */
function summarize() {
  const byRow = {};
  for (const [id, row] of Object.entries(rows)) {
    if (row.group === "index-check") continue;
    const st = Object.fromEntries(Object.entries(row.samples).map(([k, v]) => [k, stats(v)]));
    let best = null;
    for (const s of SQLITE_IDS) if (st[s] && (best === null || st[s].median < st[best].median)) best = s;
    const tj = st.tinyjoin;
    let ratio = null;
    let verdict = null;
    if (tj && best) {
      ratio = st[best].median > 0 ? tj.median / st[best].median : null;
      verdict = tj.max < st[best].min ? "faster" : tj.min > st[best].max ? "slower" : "overlap (no verdict)";
    }
    byRow[id] = { bestSqlite: best, ratioVsBestSqlite: ratio === null ? null : Math.round(ratio * 1000) / 1000, verdict };
  }
  return { byRow };
}

function fmt(s) {
  if (!s) return "–";
  const f = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
  return `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
}

function markdown(out, table) {
  const sqliteCols = SQLITE_IDS;
  const lines = [];
  lines.push(`# TinyJoin vs SQLite WASM vs PGlite (${out.profile} profile, ${out.repetitionsDone} repetition${out.repetitionsDone === 1 ? "" : "s"}${out.complete ? "" : ` of ${out.repetitions}: INCOMPLETE, run still in progress or interrupted`})`);
  lines.push("");
  lines.push(`Reproduce: \`${out.command}\` (after \`scripts/setup\` and \`scripts/build-wasm\`). Raw samples: \`${OUT.startsWith(ROOT + "/") ? OUT.slice(ROOT.length + 1) : OUT}\`.`);
  lines.push("");
  lines.push(`Browser: ${out.environment.browser.version} (headless), ${out.environment.cpu.count} CPUs (${out.environment.cpu.model}), ${out.environment.os.type} ${out.environment.os.release}. TinyJoin ${out.tinyjoin.package} (in-worker API, OPFS, package defaults: full validation at open, 16 MiB batch limit, 8,192-page cache); SQLite WASM ${out.packages["@sqlite.org/sqlite-wasm"]} (VFS opfs-sahpool, one pool per mode; journal_mode, synchronous and locking_mode as reported by the database, WAL with locking_mode=EXCLUSIVE); PGlite ${out.packages["@electric-sql/pglite"]} (${out.engines.pglite?.info?.storage ?? "opfs"}). Each engine in its own dedicated Worker; times in ms, median (min–max); ratio = TinyJoin median / median of the faster crash-safe SQLite mode on that row; verdict only when min–max ranges do not overlap.`);
  lines.push("");
  lines.push(`Results identical across engines: **${out.identicalResults ? "yes" : "NO"}**.`);
  if (out.failures.length > 0) {
    lines.push("");
    lines.push("Failed workloads (their rows lack that engine's samples):");
    for (const f of out.failures) lines.push(`- ${f.engine}: ${f.error}`);
  }
  lines.push("");
  const head = ["workload", "TinyJoin", "best SQLite", "ratio", "verdict", ...sqliteCols.map((s) => s.replace("sqlite-", "SQLite ")), "PGlite"];
  lines.push(`| ${head.join(" | ")} |`);
  lines.push(`|${head.map(() => "---").join("|")}|`);
  for (const [id, row] of Object.entries(rows)) {
    if (row.group === "index-check" || row.group === "physical" || row.group === "setup") continue;
    const st = Object.fromEntries(Object.entries(row.samples).map(([k, v]) => [k, stats(v)]));
    const sum = table.byRow[id];
    const label = row.group === "index" ? `${id} ${row.label}` : row.label;
    lines.push(`| ${label} | ${fmt(st.tinyjoin)} | ${sum?.bestSqlite?.replace("sqlite-", "") ?? "–"} | ${sum?.ratioVsBestSqlite ?? "–"} | ${sum?.verdict ?? "–"} | ${sqliteCols.map((s) => fmt(st[s])).join(" | ")} | ${fmt(st.pglite)} |`);
  }
  const phys = rows.PHYS;
  if (phys) lines.push(`\nPhysical limit: ${phys.label}: ${fmt(stats(phys.samples.opfs))} ms in total.`);
  const two = rows.S4?.samples[TWO_FLUSH];
  if (two) lines.push(`\nTinyJoin opened with \`commit: "two-flush"\` (two flushes per commit instead of one, every damaged page reported; not the default): ${rows.S4.label} ${fmt(stats(two))} ms.`);
  const deferred = rows.S4?.samples[DEFERRED];
  if (deferred) lines.push(`\nTinyJoin opened with \`commit: "deferred"\` (no flush at commit, flushed within 100 ms: the guarantee of SQLite's WAL with synchronous=NORMAL; not the default): ${rows.S4.label} ${fmt(stats(deferred))} ms.`);
  const mixedDeferred = Object.entries(rows).filter(([id, r]) => /^M\d+$/.test(id) && r.samples[DEFERRED]);
  if (mixedDeferred.length > 0) {
    const parts = mixedDeferred.map(([id, r]) => {
      const d = stats(r.samples[DEFERRED]);
      const w = r.samples["sqlite-wal-normal"] ? stats(r.samples["sqlite-wal-normal"]) : null;
      return `${id.slice(1)} ops ${fmt(d)}${w ? ` (WAL+NORMAL ${fmt(w)}, ratio ${+(d.median / w.median).toFixed(3)})` : ""}`;
    });
    lines.push(`\nTinyJoin opened with \`commit: "deferred"\` (the same durability as SQLite's WAL+NORMAL), the mixed transactions in the Worker: ${parts.join("; ")} ms.`);
  }
  const load = rows.load;
  if (load) lines.push(`\nDataset load (not a benchmark row, one sample): ${Object.entries(load.samples).map(([k, v]) => `${k} ${(v[0] / 1000).toFixed(1)} s`).join(", ")}.`);
  lines.push(`\nOpen of a database in a fresh Worker (ms, all sessions): ${Object.entries(out.openMs).map(([k, s]) => `${k} ${fmt(s)}`).join("; ")}.`);
  lines.push("");
  return lines.join("\n") + "\n";
}

main().catch(async (e) => {
  if (interrupted()) return; // the signal handler cleans up and exits
  console.error(`compare: FAILED: ${e && e.stack ? e.stack : e}`);
  await cleanupAll();
  process.exit(1);
});
