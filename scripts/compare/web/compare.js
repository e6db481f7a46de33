// The page of scripts/compare/run.mjs: starts one dedicated Worker per engine
// (engine-worker.js) and relays Node's calls to it. Also runs the envelope's
// mixed transactions from the page through each engine's client (round trips
// included): TinyJoin's own page client (`open`, an owner Worker), and for
// SQLite WASM and PGlite one message to their Worker per statement.
import { hashRows, mixedModel, mixedOps, payload64 } from "./common.js";
import { mixedSql } from "./workloads.js";

const workers = new Map();
let nextHandle = 1;

function rpc(w, op, args) {
  return new Promise((resolve, reject) => {
    const id = w.nextId++;
    w.pending.set(id, { resolve, reject });
    w.worker.postMessage({ id, op, args });
  });
}

function startWorker() {
  const worker = new Worker(new URL("./engine-worker.js", import.meta.url), { type: "module" });
  const w = { worker, nextId: 1, pending: new Map() };
  const ready = new Promise((resolve, reject) => {
    w.pending.set(0, { resolve, reject });
  });
  worker.onmessage = (ev) => {
    const p = w.pending.get(ev.data.id);
    if (p === undefined) return;
    w.pending.delete(ev.data.id);
    if (ev.data.ok) p.resolve(ev.data.value);
    else p.reject(new Error(ev.data.error));
  };
  worker.onerror = (ev) => {
    ev.preventDefault();
    for (const p of w.pending.values()) p.reject(new Error(`worker error: ${ev.message}`));
    w.pending.clear();
  };
  return ready.then(() => w);
}

async function attempt(fn) {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    return { ok: false, message: String((e && e.message) || e) };
  }
}

/** A fresh Worker with `spec`'s engine open on database `name`. */
window.spawn = (spec, name) =>
  attempt(async () => {
    const w = await startWorker();
    const handle = nextHandle++;
    workers.set(handle, w);
    const r = await rpc(w, "open", { spec, name });
    return { handle, ...r };
  });

window.call = (handle, op, args) => attempt(() => rpc(workers.get(handle), op, args));

/** Closes the engine, then terminates its Worker. */
window.kill = (handle) =>
  attempt(async () => {
    const w = workers.get(handle);
    workers.delete(handle);
    if (w === undefined) return null;
    try {
      await rpc(w, "close", {});
    } finally {
      w.worker.terminate();
    }
    return null;
  });

/** The hash of a page-driven mixed transaction's final rows, which must be the model's. */
async function modelHash(n, rows) {
  const hash = await hashRows(rows);
  if (hash !== (await hashRows(mixedModel(n, n)))) throw new Error(`page mixed ${n}: rows differ from the model`);
  return hash;
}

/** Mixed transaction of n operations driven from this page, one message per statement. */
window.pageMixed = (handle, n) =>
  attempt(async () => {
    const w = workers.get(handle);
    const table = `pm${n}`;
    const q = mixedSql(table);
    await rpc(w, "exec", { sql: q.create });
    const stmt = { insert: await rpc(w, "prepare", { sql: q.insert }), update: await rpc(w, "prepare", { sql: q.update }), delete: await rpc(w, "prepare", { sql: q.delete }) };
    await rpc(w, "begin", {});
    for (let i = 1; i <= n; i++) await rpc(w, "runInTx", { stmt: stmt.insert, params: [i, `t${i}`, payload64(i)] });
    await rpc(w, "commit", {});
    const ops = mixedOps(n, n);
    let bad = null;
    const t0 = performance.now();
    await rpc(w, "begin", {});
    for (const op of ops) {
      const changes = await rpc(w, "runInTx", { stmt: stmt[op.kind], params: op.params });
      if (changes !== 1 && bad === null) bad = `${op.kind} changed ${changes} rows`;
    }
    await rpc(w, "commit", {});
    const ms = performance.now() - t0;
    if (bad !== null) throw new Error(bad);
    return { ms, hash: await modelHash(n, await rpc(w, "query", { sql: q.select })) };
  });

/** The same through TinyJoin's page client (open(): election, owner Worker). */
const tjClients = new Map();

/** Opens a TinyJoin client from this page (its owner Worker is started by the client), for `pageMixedTinyJoin`. */
window.tjOpen = (name) =>
  attempt(async () => {
    let tj;
    try {
      tj = await import("/pkg/dist/index.js");
    } catch (e) {
      throw new Error(`TinyJoin's package (client-ts/dist/index.js) cannot be loaded: ${e && e.message}. Build it with scripts/build-wasm.`);
    }
    const handle = nextHandle++;
    tjClients.set(handle, await tj.open(name));
    return handle;
  });

window.tjClose = (handle) =>
  attempt(async () => {
    const c = tjClients.get(handle);
    tjClients.delete(handle);
    if (c !== undefined) await c.close();
    return null;
  });

/**
 * The mixed transaction through TinyJoin's page client (`open()`), one
 * request per statement, on a client that `tjOpen` opened: like the other
 * engines' `pageMixed`, every n of a repetition runs on the same owner Worker.
 */
window.pageMixedTinyJoin = (handle, n) =>
  attempt(async () => {
    const c = tjClients.get(handle);
    const table = `pm${n}`;
    const q = mixedSql(table);
    await c.exec(q.create);
    const stmt = { insert: await c.prepare(q.insert), update: await c.prepare(q.update), delete: await c.prepare(q.delete) };
    // The n initial rows one request each in a transaction, as `pageMixed`
    // sends them to the other engines: every owner has answered the same
    // requests before the timed part (a single batch would leave
    // TinyJoin's owner with code that has run less).
    await c.transaction(async (tx) => {
      for (let i = 1; i <= n; i++) await tx.runPrepared(stmt.insert, [i, `t${i}`, payload64(i)]);
    });
    const ops = mixedOps(n, n);
    let bad = null;
    const t0 = performance.now();
    await c.transaction(async (tx) => {
      for (const op of ops) {
        const r = await tx.runPrepared(stmt[op.kind], op.params);
        if (r.changes !== 1 && bad === null) bad = `${op.kind} changed ${r.changes} rows`;
      }
    });
    const ms = performance.now() - t0;
    if (bad !== null) throw new Error(bad);
    const hash = await modelHash(n, (await c.query(q.select)).rows);
    return { ms, hash, info: { engine: "tinyjoin", api: "tinyjoin open() from the page", role: c.role } };
  });

/** n bare write + flush calls on an OPFS sync access handle, in a Worker. */
window.physical = (n) =>
  attempt(
    () =>
      new Promise((resolve, reject) => {
        const w = new Worker(new URL("./physical-worker.js", import.meta.url), { type: "module" });
        w.onmessage = (ev) => {
          w.terminate();
          if (ev.data.ok) resolve(ev.data);
          else reject(new Error(ev.data.error));
        };
        w.onerror = (ev) => {
          ev.preventDefault();
          w.terminate();
          reject(new Error(ev.message));
        };
        w.postMessage({ n, file: `physical-${Date.now()}-${Math.random().toString(36).slice(2)}` });
      }),
  );

window.benchReady = true;
