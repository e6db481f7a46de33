// The page side of scripts/benchmark-workloads.mjs: drives the packaged
// client (`tinyjoin`, client-ts/dist) in this tab. Node calls these functions
// with page.evaluate; each returns plain data (times in ms from
// performance.now, hashes, check results). Errors are returned as data too.
import * as tj from "/pkg/dist/index.js";
import { MIXED_SQL, body1k, hashRows, mixedModel, mixedOps, payload64 } from "./common.js";

const clients = new Map();

function client(name) {
  const c = clients.get(name);
  if (c === undefined) throw new Error(`no open client for ${name}`);
  return c;
}

async function attempt(fn) {
  try {
    return { ok: true, ...(await fn()) };
  } catch (e) {
    return { ok: false, code: e && e.code, message: String((e && e.stack) || e) };
  }
}

/** Opens `name` (timed: Worker start, wasm load and validation included for an owner). */
window.benchOpen = (name, opts) =>
  attempt(async () => {
    const t0 = performance.now();
    const c = await tj.open(name, opts ?? {});
    const ms = performance.now() - t0;
    clients.set(name, c);
    return { ms, role: c.role };
  });

window.benchClose = (name) =>
  attempt(async () => {
    const c = clients.get(name);
    clients.delete(name);
    if (c !== undefined) await c.close();
    return {};
  });

/** Creates the mixed-transaction table with rows 1..n (one batch). */
window.mixedSetup = (name, n) =>
  attempt(async () => {
    const c = client(name);
    await c.exec(MIXED_SQL.create);
    const stmts = [];
    for (let i = 1; i <= n; i++) stmts.push([MIXED_SQL.insert, [i, `t${i}`, payload64(i)]]);
    await c.batch(stmts);
    return {};
  });

/** One mixed transaction of `ops` operations, statements prepared first; staging and commit timed apart. */
window.mixedRun = (name, n, ops) =>
  attempt(async () => {
    const c = client(name);
    const stmt = { insert: await c.prepare(MIXED_SQL.insert), update: await c.prepare(MIXED_SQL.update), delete: await c.prepare(MIXED_SQL.delete) };
    const list = mixedOps(n, ops);
    let staged = 0;
    let bad = null;
    const t0 = performance.now();
    await c.transaction(async (tx) => {
      for (const op of list) {
        const r = await tx.runPrepared(stmt[op.kind], op.params);
        if (r.changes !== 1 && bad === null) bad = `${op.kind} ${JSON.stringify(op.params)} changed ${r.changes} rows`;
      }
      staged = performance.now();
    });
    const done = performance.now();
    for (const s of Object.values(stmt)) await s.finalize();
    if (bad !== null) throw new Error(bad);
    return { stagingMs: staged - t0, commitMs: done - staged, totalMs: done - t0 };
  });

/** Compares the table with the exact model after mixedOps(n, ops). */
window.mixedCheck = (name, n, ops) =>
  attempt(async () => {
    const got = (await client(name).query(MIXED_SQL.select)).rows;
    const want = mixedModel(n, ops);
    const [hg, hw] = [await hashRows(got), await hashRows(want)];
    return { match: hg === hw, rows: got.length, wantRows: want.length, hash: hg };
  });

/** The materialization database: small(100 short rows), big(5,000 x 1 KiB). */
window.matSetup = (name) =>
  attempt(async () => {
    const c = client(name);
    await c.exec("CREATE TABLE small(id INTEGER PRIMARY KEY, name TEXT NOT NULL, n INTEGER NOT NULL); CREATE TABLE big(id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
    const small = [];
    for (let i = 1; i <= 100; i++) small.push(["INSERT INTO small VALUES (?, ?, ?)", [i, `name ${i}`, i * 7]]);
    await c.batch(small);
    const big = [];
    for (let i = 1; i <= 5000; i++) big.push(["INSERT INTO big VALUES (?, ?)", [i, body1k(i)]]);
    await c.batch(big);
    return {};
  });

export const MAT_SQL = { small: "SELECT id, name, n FROM small ORDER BY id", big: "SELECT id, body FROM big ORDER BY id" };
window.matModel = async (which) => {
  const rows = [];
  if (which === "small") for (let i = 1; i <= 100; i++) rows.push([i, `name ${i}`, i * 7]);
  else for (let i = 1; i <= 5000; i++) rows.push([i, body1k(i)]);
  return hashRows(rows);
};

/** Times one read of `which` into this page; returns the rows' hash (computed after timing). */
window.matRead = (name, which) =>
  attempt(async () => {
    const c = client(name);
    const t0 = performance.now();
    const r = await c.query(MAT_SQL[which]);
    const ms = performance.now() - t0;
    return { ms, rows: r.rows.length, hash: await hashRows(r.rows), role: c.role };
  });

/** Full validation report of `name` (at the owner). */
window.benchCheck = (name) =>
  attempt(async () => {
    const s = await client(name).check();
    return { summary: JSON.parse(JSON.stringify(s, (_k, v) => (typeof v === "bigint" ? v.toString() : v))) };
  });

/** Import of `total` 1 KiB rows into imp(id, body) in `txns` transactions (one batch each). */
window.importRun = (name, total, txns) =>
  attempt(async () => {
    const c = client(name);
    await c.exec("CREATE TABLE imp(id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
    const per = total / txns;
    const batches = [];
    for (let t = 0; t < txns; t++) {
      const stmts = [];
      for (let i = t * per + 1; i <= (t + 1) * per; i++) stmts.push(["INSERT INTO imp VALUES (?, ?)", [i, body1k(i)]]);
      batches.push(stmts);
    }
    const perTxn = [];
    const t0 = performance.now();
    for (const b of batches) {
      const s = performance.now();
      await c.batch(b);
      perTxn.push(performance.now() - s);
    }
    return { ms: performance.now() - t0, perTxnMs: perTxn };
  });

window.importCheck = (name, total) =>
  attempt(async () => {
    const got = (await client(name).query("SELECT id, body FROM imp ORDER BY id")).rows;
    const want = [];
    for (let i = 1; i <= total; i++) want.push([i, body1k(i)]);
    const [hg, hw] = [await hashRows(got), await hashRows(want)];
    return { match: hg === hw, rows: got.length, wantRows: want.length };
  });

window.tinyjoin = tj;
window.benchReady = true;
