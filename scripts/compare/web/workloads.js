// The comparison's workloads, run inside an engine's dedicated Worker against
// the adapter of engines.js. Each returns { ms, hash, ... }: `ms` is the timed
// region only (performance.now in the Worker); `hash` is computed afterwards
// from the rows the engine returned, so engines can be compared exactly.
//
// Data comes from a seeded PRNG, identical for every engine. Dataset loads
// (not timed unless a workload says so) use multi-row INSERT ... VALUES in one
// transaction; timed bulk inserts use a prepared single-row INSERT, as an app
// would. The SQL text is the same for every engine.

import { canon, hashRows, mixedModel, mixedOps, payload64 } from "./common.js";

export const SCALES = {
  full: { kv: 100_000, lookups: 10_000, durable: 200, t: 200_000, s: 10_000, f: 200_000, u: 402_000, a: 200_000, eqLookups: 10_000, rangeLookups: 1_000, compLookups: 1_000, exprLookups: 1_000, updRows: 10_000, delRows: 10_000, bulkIdx: 100_000, mixed: [25, 100, 250, 1000] },
  tenth: { kv: 10_000, lookups: 1_000, durable: 200, t: 20_000, s: 1_000, f: 20_000, u: 40_200, a: 20_000, eqLookups: 1_000, rangeLookups: 100, compLookups: 100, exprLookups: 100, updRows: 1_000, delRows: 1_000, bulkIdx: 10_000, mixed: [25, 100, 250, 1000] },
  quick: { kv: 2_000, lookups: 200, durable: 20, t: 5_000, s: 200, f: 5_000, u: 10_000, a: 5_000, eqLookups: 100, rangeLookups: 20, compLookups: 20, exprLookups: 20, updRows: 200, delRows: 200, bulkIdx: 2_000, mixed: [25, 100] },
};

export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) % 1_000_000_007;
  };
}

const now = () => performance.now();

/** Loads `count` rows made by rowFn(i) (i from 1) into `table` in one transaction, 200 rows per INSERT. */
export async function load(db, table, cols, count, rowFn) {
  const CHUNK = 200;
  const one = `(${cols.map(() => "?").join(", ")})`;
  const sqlFor = (k) => `INSERT INTO ${table}(${cols.join(", ")}) VALUES ${Array(k).fill(one).join(", ")}`;
  const full = await db.prepare(sqlFor(CHUNK));
  await db.tx(async (t) => {
    for (let start = 1; start <= count; start += CHUNK) {
      const k = Math.min(CHUNK, count - start + 1);
      const params = [];
      for (let i = start; i < start + k; i++) params.push(...rowFn(i));
      const stmt = k === CHUNK ? full : await db.prepare(sqlFor(k));
      await t.run(stmt, params);
    }
  });
}

/** A checksum of many results: per result, row count and per-column sums (numbers) or total lengths (text). */
async function hashMany(results) {
  const lines = results.map((rows) => {
    const acc = [rows.length];
    for (const r of rows) {
      for (let c = 0; c < r.length; c++) {
        const v = r[c];
        const x = typeof v === "string" ? v.length : v === null ? 0 : Number(v);
        acc[c + 1] = (acc[c + 1] ?? 0) + x;
      }
    }
    return acc.map(canon);
  });
  return hashRows(lines, true);
}

// ---------------------------------------------------------------- storage

const KV = {
  create: "CREATE TABLE kv(id INTEGER PRIMARY KEY, k INTEGER NOT NULL, v TEXT NOT NULL)",
  insert: "INSERT INTO kv(id, k, v) VALUES (?, ?, ?)",
  lookup: "SELECT k, v FROM kv WHERE id = ?",
  scan: "SELECT id, k, v FROM kv",
};
const kvRow = (i, r) => [i, r() % 100_000, `value-${i}-`.padEnd(48, "v")];

/** Bulk insert of `kv` rows in one transaction (prepared single-row INSERT). */
async function bulkInsert(db, sc) {
  await db.exec(KV.create);
  const ins = await db.prepare(KV.insert);
  const r = prng(1);
  const rows = [];
  for (let i = 1; i <= sc.kv; i++) rows.push(kvRow(i, r));
  const t0 = now();
  await db.tx(async (t) => {
    for (const row of rows) await t.run(ins, row);
  });
  const ms = now() - t0;
  const check = await db.query("SELECT count(*), sum(k), sum(length(v)) FROM kv");
  return { ms, hash: await hashRows(check) };
}

async function pointLookups(db, sc) {
  const stmt = await db.prepare(KV.lookup);
  const r = prng(2);
  const ids = [];
  for (let i = 0; i < sc.lookups; i++) ids.push(1 + (r() % sc.kv));
  const results = [];
  const t0 = now();
  for (const id of ids) results.push((await stmt.run([id])).rows);
  const ms = now() - t0;
  return { ms, hash: await hashRows(results.map((rows) => rows[0] ?? [null])) };
}

async function fullScan(db) {
  const t0 = now();
  const rows = await db.query(KV.scan);
  const ms = now() - t0;
  return { ms, rows: rows.length, hash: await hashRows(rows, false) };
}

/** `durable` single-row transactions, each committed (autocommit INSERT) before the next. */
async function durableTxns(db, sc) {
  await db.exec("CREATE TABLE log(id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  const ins = await db.prepare("INSERT INTO log(id, v) VALUES (?, ?)");
  const t0 = now();
  for (let i = 1; i <= sc.durable; i++) await ins.run([i, `entry ${i}`]);
  const ms = now() - t0;
  return { ms, hash: await hashRows(await db.query("SELECT count(*), sum(id) FROM log")) };
}

// ---------------------------------------------------------------- analytic and joins

export const QUERIES = {
  A1: { label: "filter + sum (200k rows)", sql: "SELECT sum(a) FROM t WHERE b < 100" },
  A2: { label: "GROUP BY, 100 groups (200k rows)", sql: "SELECT grp, count(*), sum(a) FROM t GROUP BY grp" },
  A3: { label: "arithmetic filter + aggregate (200k rows)", sql: "SELECT count(*), sum(a * b) FROM t WHERE (a + b) % 7 = 3" },
  J1: { label: "J1 join + GROUP BY", sql: "SELECT s.cat, count(*), sum(f.amount) FROM f JOIN s ON f.s_id = s.id GROUP BY s.cat" },
  J2: { label: "J2 selective filter on the small side", sql: "SELECT count(*), sum(f.amount) FROM s JOIN f ON f.s_id = s.id WHERE s.cat = 7" },
  J3: { label: "J3 = J2 written in a bad order", sql: "SELECT count(*), sum(f.amount) FROM f JOIN s ON f.s_id = s.id WHERE s.cat = 7" },
  J4: { label: "J4 three-way join + GROUP BY", sql: "SELECT s.cat, count(*), sum(u.qty) FROM u JOIN f ON u.f_id = f.id JOIN s ON f.s_id = s.id GROUP BY s.cat" },
  J5: { label: "J5 point join", sql: "SELECT f.id, f.amount, s.name FROM f JOIN s ON f.s_id = s.id WHERE f.id = 4242" },
  J6: { label: "J6 LEFT JOIN with unmatched rows", sql: "SELECT s.cat, count(*), count(f.id) FROM s LEFT JOIN f ON f.s_id = s.id AND f.tag = 0 GROUP BY s.cat" },
  J7: { label: "J7 join on a non-indexed column", sql: "SELECT count(*), sum(f.amount) FROM f JOIN s ON f.ref = s.code" },
};

/** The read-only dataset of the analytic and join queries (t; s, f, u with indexes on f(s_id), u(f_id)). */
async function buildReadDataset(db, sc) {
  const t0 = now();
  await db.exec(
    "CREATE TABLE t(id INTEGER PRIMARY KEY, grp INTEGER NOT NULL, a INTEGER NOT NULL, b INTEGER NOT NULL, c TEXT NOT NULL);" +
      "CREATE TABLE s(id INTEGER PRIMARY KEY, cat INTEGER NOT NULL, name TEXT NOT NULL, code INTEGER NOT NULL);" +
      "CREATE TABLE f(id INTEGER PRIMARY KEY, s_id INTEGER NOT NULL, amount INTEGER NOT NULL, tag INTEGER NOT NULL, ref INTEGER NOT NULL);" +
      "CREATE TABLE u(id INTEGER PRIMARY KEY, f_id INTEGER NOT NULL, qty INTEGER NOT NULL)",
  );
  let r = prng(3);
  await load(db, "t", ["id", "grp", "a", "b", "c"], sc.t, (i) => [i, r() % 100, r() % 1000, r() % 1000, `c${r() % 50_000}`]);
  await load(db, "s", ["id", "cat", "name", "code"], sc.s, (i) => [i, i % 100, `name-${i}`, i * 3]);
  r = prng(4);
  const matched = Math.floor(sc.s * 0.9);
  await load(db, "f", ["id", "s_id", "amount", "tag", "ref"], sc.f, (i) => [i, 1 + (r() % matched), r() % 1000, r() % 10, 1 + (r() % (3 * sc.s))]);
  r = prng(5);
  await load(db, "u", ["id", "f_id", "qty"], sc.u, (i) => [i, 1 + (r() % sc.f), r() % 100]);
  await db.exec("CREATE INDEX f_s ON f(s_id); CREATE INDEX u_f ON u(f_id)");
  const ms = now() - t0;
  return { ms, hash: await hashRows(await db.query("SELECT (SELECT count(*) FROM t), (SELECT count(*) FROM s), (SELECT count(*) FROM f), (SELECT count(*) FROM u)")) };
}

/** One query twice in this (fresh) Worker: first run, then repeat; both must return the same rows. */
async function queryFirstAndRepeat(db, _sc, args) {
  const sql = QUERIES[args.query].sql;
  let t0 = now();
  const first = await db.query(sql);
  const firstMs = now() - t0;
  t0 = now();
  const again = await db.query(sql);
  const repeatMs = now() - t0;
  const [h1, h2] = [await hashRows(first, false), await hashRows(again, false)];
  if (h1 !== h2) throw new Error(`${args.query}: the repeat returned different rows than the first run`);
  return { ms: firstMs, firstMs, repeatMs, rows: first.length, hash: h1 };
}

// ---------------------------------------------------------------- index workloads

export const A_COLS = ["id", "b", "c", "d", "e"];
const E_WORDS = ["Alpha", "BETA", "gamma", "DeLta"];
export const aRow = (r) => (i) => [i, r() % 1000, r() % 1000, r() % 1000, `${E_WORDS[r() % 4]}${r() % 250}`];

/** The index workloads in order on a fresh table `a`; returns one timing per step. */
async function indexSuite(db, sc) {
  const steps = {};
  const hashes = {};
  await db.exec("CREATE TABLE a(id INTEGER PRIMARY KEY, b INTEGER NOT NULL, c INTEGER NOT NULL, d INTEGER NOT NULL, e TEXT NOT NULL)");
  await load(db, "a", A_COLS, sc.a, aRow(prng(6)));
  const timed = async (name, fn) => {
    const t0 = now();
    const out = await fn();
    steps[name] = now() - t0;
    return out;
  };
  await timed("I1", () => db.exec("CREATE INDEX a_b ON a(b)"));
  await timed("I2", () => db.exec("CREATE INDEX a_dc ON a(d, c)"));
  await timed("I3", () => db.exec("CREATE INDEX a_le ON a(lower(e))"));
  const r = prng(7);
  const lookups = async (name, sql, n, paramsFn) => {
    const stmt = await db.prepare(sql);
    const params = [];
    for (let i = 0; i < n; i++) params.push(paramsFn());
    const results = [];
    await timed(name, async () => {
      for (const p of params) results.push((await stmt.run(p)).rows);
    });
    hashes[name] = await hashMany(results);
  };
  await lookups("I4", "SELECT id, c FROM a WHERE b = ?", sc.eqLookups, () => [r() % 1000]);
  await lookups("I5", "SELECT id, c FROM a WHERE b BETWEEN ? AND ?", sc.rangeLookups, () => {
    const lo = r() % 990;
    return [lo, lo + 9];
  });
  await lookups("I6", "SELECT id, b FROM a WHERE d = ? AND c > 500", sc.compLookups, () => [r() % 1000]);
  await lookups("I7", "SELECT id FROM a WHERE lower(e) = ?", sc.exprLookups, () => [`${E_WORDS[r() % 4].toLowerCase()}${r() % 250}`]);
  const upd = await db.prepare("UPDATE a SET b = b + 1 WHERE id BETWEEN ? AND ?");
  const updLo = Math.floor(sc.a / 4);
  const u = await timed("I8", () => upd.run([updLo + 1, updLo + sc.updRows]));
  if (u.changes !== sc.updRows) throw new Error(`I8 updated ${u.changes} rows, expected ${sc.updRows}`);
  const del = await db.prepare("DELETE FROM a WHERE id BETWEEN ? AND ?");
  const delLo = Math.floor(sc.a / 2);
  const d = await timed("I9", () => del.run([delLo + 1, delLo + sc.delRows]));
  if (d.changes !== sc.delRows) throw new Error(`I9 deleted ${d.changes} rows, expected ${sc.delRows}`);
  await db.exec("CREATE TABLE a2(id INTEGER PRIMARY KEY, b INTEGER NOT NULL, c INTEGER NOT NULL, d INTEGER NOT NULL, e TEXT NOT NULL); CREATE INDEX a2_b ON a2(b); CREATE INDEX a2_dc ON a2(d, c); CREATE INDEX a2_le ON a2(lower(e))");
  const ins = await db.prepare("INSERT INTO a2(id, b, c, d, e) VALUES (?, ?, ?, ?, ?)");
  const gen = aRow(prng(8));
  const rows = [];
  for (let i = 1; i <= sc.bulkIdx; i++) rows.push(gen(i));
  await timed("I10", () =>
    db.tx(async (t) => {
      for (const row of rows) await t.run(ins, row);
    }),
  );
  hashes.state = await hashRows(await db.query("SELECT count(*), sum(b), sum(c), sum(d), sum(length(e)) FROM a UNION ALL SELECT count(*), sum(b), sum(c), sum(d), sum(length(e)) FROM a2"), false);
  hashes.indexed = await hashMany([await db.query("SELECT id FROM a WHERE lower(e) = 'gamma7'"), await db.query("SELECT id, c FROM a2 WHERE d = 5 AND c > 500")]);
  return { ms: 0, steps, hashes, hash: await hashRows(Object.entries(hashes).sort(), true) };
}

// ---------------------------------------------------------------- mixed transactions (the envelope's)

export function mixedSql(table) {
  return {
    create: `CREATE TABLE ${table}(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, payload TEXT NOT NULL)`,
    insert: `INSERT INTO ${table}(id, title, payload) VALUES (?, ?, ?)`,
    update: `UPDATE ${table} SET title = ? WHERE id = ?`,
    delete: `DELETE FROM ${table} WHERE id = ?`,
    select: `SELECT id, title, payload FROM ${table} ORDER BY id`,
  };
}

export async function mixedSetup(db, table, n) {
  const q = mixedSql(table);
  await db.exec(q.create);
  await load(db, table, ["id", "title", "payload"], n, (i) => [i, `t${i}`, payload64(i)]);
}

/** One transaction of n mixed operations in this Worker (statements prepared first). */
async function mixedInWorker(db, _sc, args) {
  const { n } = args;
  const table = `m${n}`;
  const q = mixedSql(table);
  await mixedSetup(db, table, n);
  const stmt = { insert: await db.prepare(q.insert), update: await db.prepare(q.update), delete: await db.prepare(q.delete) };
  const ops = mixedOps(n, n);
  let bad = null;
  const t0 = now();
  await db.tx(async (t) => {
    for (const op of ops) {
      const r = await t.run(stmt[op.kind], op.params);
      if (r.changes !== 1 && bad === null) bad = `${op.kind} changed ${r.changes} rows`;
    }
  });
  const ms = now() - t0;
  if (bad !== null) throw new Error(bad);
  const got = await db.query(q.select);
  const hash = await hashRows(got);
  if (hash !== (await hashRows(mixedModel(n, n)))) throw new Error(`mixed ${n}: rows differ from the model`);
  return { ms, hash };
}

export const WORKLOADS = { bulkInsert, pointLookups, fullScan, durableTxns, buildReadDataset, queryFirstAndRepeat, indexSuite, mixedInWorker };
