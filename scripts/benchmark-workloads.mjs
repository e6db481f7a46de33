#!/usr/bin/env node
// The workload envelope of TinyJoin (issue 5, DESIGN.md "Measurement"): the
// packaged client (client-ts/dist) in headless Debian Chromium on OPFS.
//
//   node scripts/benchmark-workloads.mjs [out.json] [--quick | --point-writes] [--resume] [--samples=N]
//
// Shapes (each checked against its exact row model after commit and after a
// reopen; five samples by default; min/median/p90/max):
//   mixed-N          one transaction of N operations (insert new key / update a
//                    title / delete a key, statements prepared first, awaited one
//                    by one) over a table of N rows; N = 25, 100, 250, 1000.
//                    Staging (the operations) and commit (callback done ->
//                    promise resolved, persistence included) timed apart.
//   point-writes     (--point-writes only) the 25-operation transaction over 5,000 rows.
//   materialize-*    100 short rows and 5,000 x 1 KiB rows read into the page,
//                    from the owner tab and a follower tab, order alternating;
//                    both must return identical rows.
//   cold-open        open() of an empty database in a fresh tab (owner Worker
//                    start and wasm load included).
//   reopen-largest   open() of the 5,000 x 1 KiB database in a fresh tab (fresh
//                    Worker, full validation), then its first full read.
//   import-*         5,000 x 1 KiB rows in one transaction, and in five of 1,000
//                    (one batch() each, default batch limit).
//
// Output: JSON (default artifacts/benchmark-workloads.json, or
// artifacts/benchmark-workloads-quick.json with --quick), rewritten after each
// complete shape. --resume reuses completed shapes of an existing output only
// when runtime hashes, package version, schema, samples, profile and
// environment all match. --quick is a smoke profile: one sample, small shapes;
// it checks correctness and completion, its times mean nothing.
// Binds a free 127.0.0.1 port, uses a fresh temp browser profile (deleted at
// the end, with the OPFS data in it), and exits by itself.

import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ROOT, cleanupAll, interrupted, environment, environmentKey, launchBrowser, openPage, parseArgs, serve, snapshotTinyjoin, stats, withTimeout, writeJson } from "./compare/lib/harness.mjs";

const SCHEMA = "tinyjoin-workload-envelope/1";
const STEP_TIMEOUT_MS = 300_000;

const { flags, positional } = parseArgs(process.argv.slice(2), ["quick", "point-writes", "resume", "samples"]);
if (flags.quick && flags["point-writes"]) {
  console.error("--quick and --point-writes exclude each other");
  process.exit(2);
}
const profile = flags.quick ? "quick" : flags["point-writes"] ? "point-writes" : "full";
const SAMPLES = flags.samples !== undefined ? Number(flags.samples) : profile === "quick" ? 1 : 5;
if (!Number.isInteger(SAMPLES) || SAMPLES < 1) {
  console.error("--samples must be a positive integer");
  process.exit(2);
}
const OUT = resolve(positional[0] ?? join(ROOT, "artifacts", profile === "full" ? "benchmark-workloads.json" : `benchmark-workloads-${profile}.json`));

function log(msg) {
  console.log(`envelope: ${msg}`);
}

/** Unwraps a page result: throws with the page's message when it failed. */
function ok(r, what) {
  if (!r || r.ok !== true) throw new Error(`${what} failed: ${r ? `${r.code ?? ""} ${r.message}` : "no result"}`);
  return r;
}

let uniq = 0;
const fresh = (prefix) => `${prefix}-${Date.now().toString(36)}-${uniq++}`;

function shapesFor(profileName) {
  if (profileName === "point-writes") return [{ id: "point-writes", kind: "mixed", n: 5000, ops: 25 }];
  const mixedNs = profileName === "quick" ? [25, 100] : [25, 100, 250, 1000];
  return [
    ...mixedNs.map((n) => ({ id: `mixed-${n}`, kind: "mixed", n, ops: n })),
    { id: "materialize-100-short", kind: "materialize", which: "small" },
    { id: "materialize-5000x1KiB", kind: "materialize", which: "big" },
    { id: "cold-open", kind: "cold-open" },
    { id: "reopen-largest", kind: "reopen-largest" },
    { id: "import-1x5000x1KiB", kind: "import", total: 5000, txns: 1 },
    { id: "import-5x1000x1KiB", kind: "import", total: 5000, txns: 5 },
  ];
}

/** Runs the shapes; `ctx` gives tabs on the served envelope page. */
const runners = {
  async mixed(shape, ctx) {
    const staging = [];
    const commit = [];
    const total = [];
    const checks = [];
    for (let s = 0; s < SAMPLES; s++) {
      const name = fresh(`mixed${shape.n}`);
      const page = await ctx.tab();
      ok(await page.evaluate(([n]) => window.benchOpen(n), [name]), "open");
      ok(await page.evaluate(([n, rows]) => window.mixedSetup(n, rows), [name, shape.n]), "setup");
      const r = ok(await page.evaluate(([n, rows, ops]) => window.mixedRun(n, rows, ops), [name, shape.n, shape.ops]), "mixed transaction");
      staging.push(r.stagingMs);
      commit.push(r.commitMs);
      total.push(r.totalMs);
      const after = ok(await page.evaluate(([n, rows, ops]) => window.mixedCheck(n, rows, ops), [name, shape.n, shape.ops]), "check after commit");
      ok(await page.evaluate(([n]) => window.benchClose(n), [name]), "close");
      await page.close();
      const page2 = await ctx.tab();
      ok(await page2.evaluate(([n]) => window.benchOpen(n, { validation: "full" }), [name]), "reopen");
      const reopened = ok(await page2.evaluate(([n, rows, ops]) => window.mixedCheck(n, rows, ops), [name, shape.n, shape.ops]), "check after reopen");
      ok(await page2.evaluate(([n]) => window.benchClose(n), [name]), "close");
      await page2.close();
      if (!after.match || !reopened.match) throw new Error(`${shape.id}: row model mismatch (after commit ${after.match}, after reopen ${reopened.match}; ${after.rows}/${after.wantRows} rows)`);
      checks.push({ afterCommit: after.match, afterReopen: reopened.match, rows: after.rows });
    }
    return { params: { rows: shape.n, operations: shape.ops }, samples: { stagingMs: staging, commitMs: commit, totalMs: total }, checks };
  },

  async materialize(shape, ctx) {
    const name = fresh(`mat-${shape.which}`);
    const owner = await ctx.tab();
    const o = ok(await owner.evaluate(([n]) => window.benchOpen(n), [name]), "owner open");
    ok(await owner.evaluate(([n]) => window.matSetup(n), [name]), "setup");
    const follower = await ctx.tab();
    const f = ok(await follower.evaluate(([n]) => window.benchOpen(n), [name]), "follower open");
    if (o.role !== "owner" || f.role !== "follower") throw new Error(`expected owner + follower, got ${o.role} + ${f.role}`);
    const want = await owner.evaluate(([w]) => window.matModel(w), [shape.which]);
    const ownerMs = [];
    const followerMs = [];
    const order = [];
    for (let s = 0; s < SAMPLES; s++) {
      const tabs = s % 2 === 0 ? [["owner", owner], ["follower", follower]] : [["follower", follower], ["owner", owner]];
      order.push(tabs.map(([r]) => r).join(","));
      for (const [role, page] of tabs) {
        const r = ok(await page.evaluate(([n, w]) => window.matRead(n, w), [name, shape.which]), `${role} read`);
        if (r.hash !== want) throw new Error(`${shape.id}: ${role} rows differ from the model (${r.rows} rows)`);
        (role === "owner" ? ownerMs : followerMs).push(r.ms);
      }
    }
    ok(await follower.evaluate(([n]) => window.benchClose(n), [name]), "close");
    ok(await owner.evaluate(([n]) => window.benchClose(n), [name]), "close");
    await follower.close();
    await owner.close();
    const page = await ctx.tab();
    ok(await page.evaluate(([n]) => window.benchOpen(n, { validation: "full" }), [name]), "reopen");
    const r = ok(await page.evaluate(([n, w]) => window.matRead(n, w), [name, shape.which]), "read after reopen");
    ok(await page.evaluate(([n]) => window.benchClose(n), [name]), "close");
    await page.close();
    if (r.hash !== want) throw new Error(`${shape.id}: rows differ from the model after reopen`);
    return {
      params: { rows: shape.which === "small" ? 100 : 5000, rowBytes: shape.which === "small" ? "short" : 1024, order },
      samples: { ownerMs, followerMs },
      checks: [{ ownerEqualsFollower: true, matchesModel: true, afterReopen: true }],
    };
  },

  async "cold-open"(_shape, ctx) {
    const ms = [];
    for (let s = 0; s < SAMPLES; s++) {
      const name = fresh("cold");
      const page = await ctx.tab();
      const r = ok(await page.evaluate(([n]) => window.benchOpen(n), [name]), "cold open");
      if (r.role !== "owner") throw new Error(`cold open: role ${r.role}`);
      ok(await page.evaluate(([n]) => window.benchClose(n), [name]), "close");
      await page.close();
      ms.push(r.ms);
    }
    return { params: { database: "empty", context: "fresh tab (new page realm, owner Worker and wasm loaded anew, HTTP cache off)" }, samples: { openMs: ms }, checks: [{ role: "owner" }] };
  },

  async "reopen-largest"(_shape, ctx) {
    const name = fresh("largest");
    const setup = await ctx.tab();
    ok(await setup.evaluate(([n]) => window.benchOpen(n), [name]), "open");
    ok(await setup.evaluate(([n]) => window.matSetup(n), [name]), "setup");
    const want = await setup.evaluate(() => window.matModel("big"));
    ok(await setup.evaluate(([n]) => window.benchClose(n), [name]), "close");
    await setup.close();
    const openMs = [];
    const readMs = [];
    for (let s = 0; s < SAMPLES; s++) {
      const page = await ctx.tab();
      const o = ok(await page.evaluate(([n]) => window.benchOpen(n, { validation: "full" }), [name]), "reopen");
      const r = ok(await page.evaluate(([n]) => window.matRead(n, "big"), [name]), "first read");
      const check = ok(await page.evaluate(([n]) => window.benchCheck(n), [name]), "check");
      ok(await page.evaluate(([n]) => window.benchClose(n), [name]), "close");
      await page.close();
      if (r.hash !== want) throw new Error("reopen-largest: first read differs from the model");
      const problems = check.summary.problems ?? [];
      if (problems.length > 0) throw new Error(`reopen-largest: validation found problems: ${JSON.stringify(problems).slice(0, 500)}`);
      openMs.push(o.ms);
      readMs.push(r.ms);
    }
    return { params: { rows: 5000, rowBytes: 1024, validation: "full" }, samples: { openMs, firstReadMs: readMs }, checks: [{ matchesModel: true, validationProblems: 0 }] };
  },

  async import(shape, ctx) {
    const ms = [];
    const perTxn = [];
    const checks = [];
    for (let s = 0; s < SAMPLES; s++) {
      const name = fresh(`import${shape.txns}`);
      const page = await ctx.tab();
      ok(await page.evaluate(([n]) => window.benchOpen(n), [name]), "open");
      const r = ok(await page.evaluate(([n, t, x]) => window.importRun(n, t, x), [name, shape.total, shape.txns]), "import");
      const after = ok(await page.evaluate(([n, t]) => window.importCheck(n, t), [name, shape.total]), "check after commit");
      ok(await page.evaluate(([n]) => window.benchClose(n), [name]), "close");
      await page.close();
      const page2 = await ctx.tab();
      ok(await page2.evaluate(([n]) => window.benchOpen(n, { validation: "full" }), [name]), "reopen");
      const reopened = ok(await page2.evaluate(([n, t]) => window.importCheck(n, t), [name, shape.total]), "check after reopen");
      ok(await page2.evaluate(([n]) => window.benchClose(n), [name]), "close");
      await page2.close();
      if (!after.match || !reopened.match) throw new Error(`${shape.id}: row model mismatch (after commit ${after.match}, after reopen ${reopened.match})`);
      ms.push(r.ms);
      perTxn.push(...r.perTxnMs);
      checks.push({ afterCommit: true, afterReopen: true, rows: after.rows });
    }
    return { params: { rows: shape.total, rowBytes: 1024, transactions: shape.txns, via: "batch() per transaction", batchLimit: "default" }, samples: { totalMs: ms, perTransactionMs: perTxn }, checks };
  },
};

async function main() {
  const runtime = await snapshotTinyjoin();
  const shapes = shapesFor(profile);
  const server = await serve({ "/pkg/": runtime.dir, "/bench/": join(ROOT, "scripts/compare/web") });
  const browser = await launchBrowser("envelope");
  const pageLog = (m) => console.log(`  ${m}`);
  const ctx = { tab: () => openPage(browser.context, `${server.origin}/bench/envelope.html`, pageLog) };
  let exitCode = 1;
  try {
    const first = await ctx.tab();
    const env = await environment(first);
    await first.close();
    const fingerprint = { schema: SCHEMA, profile, samples: SAMPLES, package: `${runtime.name}@${runtime.version}`, runtimeFiles: runtime.files, environment: environmentKey(env) };
    const out = { schema: SCHEMA, command: `node scripts/benchmark-workloads.mjs ${process.argv.slice(2).join(" ")}`.trim(), profile, samples: SAMPLES, started: new Date().toISOString(), finished: null, environment: env, package: { name: runtime.name, version: runtime.version }, runtimeFiles: runtime.files, storage: "opfs", shapes: {} };
    if (flags.resume && existsSync(OUT)) {
      const prev = JSON.parse(readFileSync(OUT, "utf8"));
      const prevFp = { schema: prev.schema, profile: prev.profile, samples: prev.samples, package: `${prev.package?.name}@${prev.package?.version}`, runtimeFiles: prev.runtimeFiles, environment: prev.environment ? environmentKey(prev.environment) : null };
      if (JSON.stringify(prevFp) === JSON.stringify(fingerprint)) {
        for (const [id, v] of Object.entries(prev.shapes ?? {})) if (v && v.complete) out.shapes[id] = v;
        out.started = prev.started;
        log(`resuming: ${Object.keys(out.shapes).length} completed shape(s) reused from ${OUT}`);
      } else {
        log(`--resume: ${OUT} was made by different runtime files, version, schema, samples, profile or environment; starting over`);
      }
    }
    let failed = 0;
    for (const shape of shapes) {
      if (out.shapes[shape.id]?.complete) {
        log(`${shape.id}: reused`);
        continue;
      }
      const t0 = Date.now();
      try {
        const r = await withTimeout(runners[shape.kind](shape, ctx), STEP_TIMEOUT_MS * SAMPLES, shape.id);
        const summary = Object.fromEntries(Object.entries(r.samples).map(([k, v]) => [k, stats(v)]));
        out.shapes[shape.id] = { complete: true, ...r, stats: summary };
        const line = Object.entries(summary)
          .map(([k, s]) => `${k} median ${s.median} ms (min ${s.min}, p90 ${s.p90}, max ${s.max})`)
          .join("; ");
        log(`ok   ${shape.id} (${Date.now() - t0} ms wall): ${line}`);
      } catch (e) {
        if (interrupted()) throw e;
        failed++;
        out.shapes[shape.id] = { complete: false, error: String(e && e.message ? e.message : e) };
        log(`FAIL ${shape.id}: ${e && e.stack ? e.stack : e}`);
      } finally {
        for (const p of browser.context.pages()) await p.close().catch(() => undefined);
      }
      await writeJson(OUT, out);
    }
    out.finished = new Date().toISOString();
    await writeJson(OUT, out);
    const done = shapes.filter((s) => out.shapes[s.id]?.complete).length;
    log(`wrote ${OUT}`);
    log(`${done} shapes complete, ${failed} failed`);
    exitCode = failed === 0 ? 0 : 1;
  } finally {
    await browser.close();
    await server.close();
    await runtime.remove();
  }
  if (interrupted()) await cleanupAll();
  else process.exit(exitCode);
}

main().catch(async (e) => {
  if (interrupted()) return; // the signal handler cleans up and exits
  console.error(`envelope: ${e && e.stack ? e.stack : e}`);
  await cleanupAll();
  process.exit(1);
});
