// How long V8's optimizing tier (TurboFan) takes to compile the package's
// hot wasm functions, and how the first rounds of a workload compare with
// later ones: a diagnostic tool, not a test (the machine is shared and noisy).
// Runs the built package (client-ts/dist, scripts/build-wasm) in Node 20 with
// the memory device, in a child process started with
// --trace-wasm-compilation-times, and prints the total optimizing-compile
// time, the largest compiles (function index, body bytes, ms) and the
// workload's per-round timings. V8 compiles a hot function whole, on a
// background thread, and uses the result from its next call on, so a large
// hot function keeps running in the baseline tier meanwhile
// (artifacts/SLOWER.md, "Code that has not warmed up").
//
// Usage: node scripts/inworker-timing/tiering.mjs [--workload=lookups|mixed]
//          [--dist=client-ts/dist] [--names=some.wasm] [--top=12]
// --names: a build of the same module that kept its name section (wasm-opt
// with -g instead of --strip-debug) to name the functions.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { resolve } from "node:path";
import { functionNames, openPackageInNode } from "./node-tools.mjs";

const ROOT = new URL("../../", import.meta.url).pathname;
const arg = (name, dflt) => (process.argv.find((a) => a.startsWith(`--${name}=`)) ?? `--${name}=${dflt}`).slice(name.length + 3);
const workload = arg("workload", "lookups");
const dist = resolve(arg("dist", `${ROOT}client-ts/dist`)) + "/";

if (process.env.TJ_TIERING_CHILD === "1") {
  await child();
} else {
  parent();
}

/** Runs the workload and prints `round <ms per op>` lines. */
async function child() {
  const openInWorker = await openPackageInNode(dist);
  const db = await openInWorker("tiering", { storage: "memory" });
  if (workload === "lookups") {
    await db.exec("CREATE TABLE kv(id INTEGER PRIMARY KEY, k INTEGER NOT NULL, v TEXT NOT NULL)");
    const ins = await db.prepare("INSERT INTO kv(id, k, v) VALUES (?, ?, ?)");
    await db.transaction(async (t) => {
      for (let i = 1; i <= 100_000; i++) await t.runPrepared(ins, [i, (i * 7) % 100_000, `value-${i}-`.padEnd(48, "v")]);
    });
    const st = await db.prepare("SELECT k, v FROM kv WHERE id = ?");
    let x = 12345;
    for (let r = 0; r < 4; r++) {
      const t0 = performance.now();
      for (let i = 0; i < 10_000; i++) {
        x = (x * 1103515245 + 12345) % 2147483648;
        if ((await st.run([1 + (x % 100_000)])).rows.length !== 1) throw new Error("a lookup missed");
      }
      console.log(`round ${r + 1}: ${(((performance.now() - t0) * 1000) / 10_000).toFixed(2)} µs per lookup`);
    }
  } else {
    // The comparison's mixed transactions (insert / update the UNIQUE title / delete).
    const payload = (i) => `p${i}:`.padEnd(64, String.fromCharCode(97 + (i % 26)));
    for (const n of [25, 100, 250, 1000]) {
      const t = `m${n}`;
      await db.exec(`CREATE TABLE ${t}(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, payload TEXT NOT NULL)`);
      const ins = await db.prepare(`INSERT INTO ${t}(id, title, payload) VALUES (?, ?, ?)`);
      const upd = await db.prepare(`UPDATE ${t} SET title = ? WHERE id = ?`);
      const del = await db.prepare(`DELETE FROM ${t} WHERE id = ?`);
      await db.transaction(async (tx) => {
        for (let i = 1; i <= n; i++) await tx.runPrepared(ins, [i, `t${i}`, payload(i)]);
      });
      let u = 0;
      let d = 0;
      const t0 = performance.now();
      await db.transaction(async (tx) => {
        for (let k = 0; k < n; k++) {
          if (k % 3 === 0) await tx.runPrepared(ins, [n + 1 + k, `n${n + 1 + k}`, payload(n + 1 + k)]);
          else if (k % 3 === 1) await tx.runPrepared(upd, [`u${2 * u + 1}-${k}`, 2 * u++ + 1]);
          else await tx.runPrepared(del, [2 * ++d]);
        }
      });
      console.log(`mixed ${n}: ${(performance.now() - t0).toFixed(1)} ms`);
    }
  }
  await db.close();
}

/** Starts the child with V8's compile trace and summarizes it. */
function parent() {
  const r = spawnSync(process.execPath, ["--trace-wasm-compilation-times", new URL(import.meta.url).pathname, ...process.argv.slice(2)], {
    env: { ...process.env, TJ_TIERING_CHILD: "1" },
    encoding: "utf8",
    maxBuffer: 256 << 20,
  });
  if (r.status !== 0) {
    process.stderr.write(r.stderr);
    throw new Error(`the workload failed (status ${r.status}); is the package built (scripts/build-wasm)?`);
  }
  const lines = (r.stdout + r.stderr).split("\n");
  const optimized = [];
  for (const l of lines) {
    const m = /Compiled function \S+#(\d+) using TurboFan, took (\d+) ms.*bodysize (\d+)/.exec(l);
    if (m) optimized.push({ index: Number(m[1]), ms: Number(m[2]), body: Number(m[3]) });
  }
  const namesFile = arg("names", "");
  const names = namesFile ? functionNames(readFileSync(namesFile)) : new Map();
  const total = optimized.reduce((s, f) => s + f.ms, 0);
  console.log(`workload: ${workload}; package: ${dist}`);
  for (const l of lines) if (l.startsWith("round ") || l.startsWith("mixed ")) console.log(`  ${l}`);
  console.log(`optimizing tier: ${optimized.length} functions, ${total} ms of compile in all; the largest:`);
  const top = Number(arg("top", "12"));
  for (const f of optimized.sort((a, b) => b.ms - a.ms).slice(0, top)) {
    console.log(`  ${String(f.ms).padStart(5)} ms  ${String(f.body).padStart(6)} bytes  #${f.index} ${names.get(f.index) ?? ""}`);
  }
}
