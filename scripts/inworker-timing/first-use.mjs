// How much wasm V8 compiles the first time a statement runs: a diagnostic
// tool, not a test. V8 compiles each wasm function on its first call, with
// its baseline compiler (Liftoff), whole: a large function on a statement's
// path costs its full size even when the statement uses a small part of it.
// At about 20 MB/s here (the package's 1.37 MB compile eagerly in ~66 ms),
// 40 KB of first-use code is about 2 ms of a first run. The owner's open,
// and an import, run a warm-up statement (worker/src/warm_up.rs) first:
// what is counted here is what a statement compiles beyond it.
//
// Each step runs in a fresh Node 20 process with the package (client-ts/dist,
// in-worker API, memory storage) under --trace-wasm-compilation-times, and
// sums the function bodies compiled between two markers:
//   query:<Q>  the comparison's query Q (A1-A3, J1-J7) on its dataset (the
//              comparison's "quick" scale), first run then repeat, in a
//              process that only imported the database (a fresh Worker's
//              open: the same validation)
//   mixed      the comparison's 25-operation mixed transaction after its
//              setup, statement by statement (the Worker's first
//              transaction), then its commit
// Prints, per step: functions and kilobytes compiled, and the time; with
// --names=FILE.wasm (a build of the same module that kept its name section:
// wasm-opt with -g instead of --strip-debug, as for tiering.mjs) the largest
// functions by name. Function bodies are counted as V8 reports
// them (`bodysize`). Needs scripts/build-wasm and coreutils' stdbuf.
//
// Usage: node scripts/inworker-timing/first-use.mjs [--dist=client-ts/dist]
//          [--steps=mixed,query:J3,...] [--names=FILE.wasm] [--top=12]
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { COMPARE_DIR, ROOT, parseArgs } from "../compare/lib/harness.mjs";
import { functionNames, openPackageInNode } from "./node-tools.mjs";

const { flags } = parseArgs(process.argv.slice(2), ["dist", "steps", "names", "top", "child", "image"]);
const dist = resolve(ROOT, String(flags.dist ?? "client-ts/dist"));
const web = (p) => pathToFileURL(resolve(COMPARE_DIR, "web", p)).href;

/** The comparison's adapter shape (scripts/compare/web/engines.js) over a client. */
function adapter(db) {
  return {
    exec: (sql) => db.exec(sql),
    query: async (sql, params) => (await db.query(sql, params ?? [])).rows,
    async prepare(sql) {
      const inner = await db.prepare(sql);
      return { inner, run: async (params) => inner.run(params ?? []) };
    },
    tx: (fn) => db.transaction((t) => fn({ run: (stmt, params) => t.runPrepared(stmt.inner, params ?? []) })),
  };
}

const mark = (text) => process.stdout.write(`@@ ${text}\n`);

async function child(step, image) {
  const openInWorker = await openPackageInNode(dist);
  const db = await openInWorker("first-use", { storage: "memory" });
  if (step === "image") {
    const { SCALES, WORKLOADS } = await import(web("workloads.js"));
    await WORKLOADS.buildReadDataset(adapter(db), SCALES.quick);
    writeFileSync(image, await db.exportBytes());
    return;
  }
  if (step.startsWith("query:")) {
    const { QUERIES } = await import(web("workloads.js"));
    await db.importBytes(readFileSync(image));
    const sql = QUERIES[step.slice(6)].sql;
    for (const run of ["first run", "repeat"]) {
      mark(`begin ${run}`);
      const t = performance.now();
      await db.query(sql);
      mark(`end ${run} ${(performance.now() - t).toFixed(2)}`);
    }
    return;
  }
  if (step === "mixed") {
    const { mixedOps } = await import(web("common.js"));
    const { mixedSetup, mixedSql } = await import(web("workloads.js"));
    // As the comparison's mixedInWorker: the table loaded, then the statements prepared.
    const n = 25;
    const q = mixedSql("m25");
    await mixedSetup(adapter(db), "m25", n);
    const stmt = { insert: await db.prepare(q.insert), update: await db.prepare(q.update), delete: await db.prepare(q.delete) };
    const seen = new Set();
    let t = 0;
    await db.transaction(async (tx) => {
      for (const op of mixedOps(n, n)) {
        // Each kind's first statement on its own; the rest together.
        const first = !seen.has(op.kind);
        seen.add(op.kind);
        if (first) mark(`begin first ${op.kind}`);
        t = performance.now();
        await tx.runPrepared(stmt[op.kind], op.params);
        if (first) mark(`end first ${op.kind} ${(performance.now() - t).toFixed(2)}`);
      }
      mark("begin commit");
      t = performance.now();
    });
    mark(`end commit ${(performance.now() - t).toFixed(2)}`);
    return;
  }
  throw new Error(`unknown step ${step}`);
}

function runStep(step, image) {
  const r = spawnSync(
    "stdbuf",
    ["-o0", process.execPath, "--trace-wasm-compilation-times", new URL(import.meta.url).pathname, `--child=${step}`, `--image=${image}`, `--dist=${dist}`],
    { encoding: "utf8", maxBuffer: 1 << 28 },
  );
  if (r.status !== 0) throw new Error(`step ${step} failed: ${r.stderr || r.error}`);
  return r.stdout;
}

/**
 * The Liftoff compiles between each `@@ begin X` and `@@ end X ms`. V8's
 * optimizing compiles print from background threads and may cut into a
 * line (a marker can land mid-line), so markers are found anywhere and only
 * whole Liftoff lines (compiled on the thread that prints the markers) count.
 */
function sections(text) {
  const out = [];
  const marker = /@@ (begin|end) ([^\n]*?)(?: ([\d.]+))?\n/g;
  const liftoff = /#(\d+) using Liftoff, took \d+ ms and \d+ bytes; bodysize (\d+)/g;
  let open = null;
  let from = 0;
  for (const m of text.matchAll(marker)) {
    if (open) {
      for (const c of text.slice(from, m.index).matchAll(liftoff)) open.fns.push({ index: Number(c[1]), size: Number(c[2]) });
    }
    from = m.index + m[0].length;
    if (m[1] === "begin") open = { name: m[2], fns: [] };
    else if (open) {
      out.push({ ...open, ms: Number(m[3]) });
      open = null;
    }
  }
  return out;
}

if (flags.child) {
  await child(String(flags.child), String(flags.image));
} else {
  const steps = String(flags.steps ?? "mixed,query:A1,query:A3,query:J2,query:J3,query:J5").split(",");
  const names = flags.names ? functionNames(readFileSync(String(flags.names))) : null;
  const top = Number(flags.top ?? 12);
  const dir = mkdtempSync(join(tmpdir(), "tinyjoin-first-use-"));
  try {
    const image = join(dir, "read.tj");
    if (steps.some((s) => s.startsWith("query:"))) runStep("image", image);
    let total = 0;
    for (const step of steps) {
      for (const s of sections(runStep(step, image))) {
        const bytes = s.fns.reduce((a, f) => a + f.size, 0);
        total += bytes;
        console.log(`${`${step} ${s.name}`.padEnd(28)} ${String(s.fns.length).padStart(4)} functions ${(bytes / 1024).toFixed(1).padStart(6)} KB ${s.ms.toFixed(2).padStart(7)} ms`);
        if (names) {
          for (const f of [...s.fns].sort((a, b) => b.size - a.size).slice(0, top)) {
            console.log(`    ${String(f.size).padStart(6)} ${(names.get(f.index) ?? "?").slice(0, 140)}`);
          }
        }
      }
    }
    console.log(`total compiled in the measured sections: ${(total / 1024).toFixed(1)} KB`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
