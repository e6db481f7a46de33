// Engine adapters, loaded inside each engine's dedicated Worker. Every engine
// gets the same SQL text (positional `?` parameters; PGlite receives them
// renumbered as $1..$n, its only syntax) and exposes the same async surface:
//
//   exec(sql)                       statements without parameters or rows
//   query(sql, params) -> rows      rows as arrays
//   prepare(sql) -> stmt            stmt.run(params) -> { rows, changes }
//   tx(async (t) => ...)            one write transaction; t.run(stmt, params), t.query(sql, params)
//   begin() / commit()              the same transaction, step by step (page-driven runs)
//   close()
//   info                            what was actually configured (VFS, modes as the db reports them)
//
// Engines are imported only when asked for, so a missing or broken one fails
// alone with a clear message.

const NM = "/nm/";

/** `?` -> `$1..$n` (our SQL never has `?` inside string literals). */
function toPg(sql) {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

async function tinyjoinEngine(name, config) {
  let mod;
  try {
    mod = await import("/pkg/dist/worker.js");
  } catch (e) {
    throw new Error(`TinyJoin's package (client-ts/dist/worker.js) cannot be loaded: ${e && e.message}. Build it with scripts/build-wasm.`);
  }
  const options = { validation: config.validation ?? "full" };
  if (config.batchLimitBytes !== undefined) options.batchLimitBytes = config.batchLimitBytes;
  if (config.commit !== undefined) options.commit = config.commit;
  const db = await mod.openInWorker(name, options);
  let open = null;
  const adapter = {
    info: { engine: "tinyjoin", api: "tinyjoin/worker openInWorker", storage: "opfs", options },
    exec: (sql) => db.exec(sql),
    query: async (sql, params) => (await db.query(sql, params ?? [])).rows,
    async prepare(sql) {
      const s = await db.prepare(sql);
      return {
        inner: s,
        async run(params) {
          const r = await s.run(params ?? []);
          return { rows: r.rows, changes: r.changes };
        },
      };
    },
    tx: (fn) =>
      db.transaction((t) =>
        fn({
          run: async (stmt, params) => {
            const r = await t.runPrepared(stmt.inner, params ?? []);
            return { rows: r.rows, changes: r.changes };
          },
          query: async (sql, params) => (await t.query(sql, params ?? [])).rows,
        }),
      ),
    // Step-by-step transaction over the callback API: the callback waits until commit() is called.
    begin() {
      let release;
      const gate = new Promise((r) => (release = r));
      let ready;
      const started = new Promise((r) => (ready = r));
      const done = db.transaction(async (t) => {
        ready(t);
        await gate;
      });
      open = { release, done, started };
      return started.then(() => undefined);
    },
    async runInTx(stmt, params) {
      const t = await open.started;
      const r = await t.runPrepared(stmt.inner, params ?? []);
      return { rows: r.rows, changes: r.changes };
    },
    async commit() {
      const o = open;
      open = null;
      o.release();
      await o.done;
    },
    close: () => db.close(),
  };
  return adapter;
}

let sqlite3Promise = null;

async function sqliteEngine(name, config) {
  const { default: init } = await import(`${NM}@sqlite.org/sqlite-wasm/dist/index.mjs`);
  sqlite3Promise ??= init({ print: () => undefined, printErr: (...a) => console.error(...a) });
  const sqlite3 = await sqlite3Promise;
  const poolName = `bench-${config.journal}-${config.synchronous}`.toLowerCase();
  // The SAH pool VFS: OPFS sync access handles, no SharedArrayBuffer or COOP/COEP needed.
  let pool;
  for (let attempt = 0; ; attempt++) {
    try {
      pool = await sqlite3.installOpfsSAHPoolVfs({ name: poolName, directory: `.${poolName}`, initialCapacity: 8 });
      break;
    } catch (e) {
      // A terminated Worker's handles are released asynchronously.
      if (attempt >= 40) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  await pool.reserveMinimumCapacity(pool.getFileCount() + 4);
  const db = new pool.OpfsSAHPoolDb(`/${name}.sqlite3`);
  const pragma = (sql) => db.selectValue(sql);
  const requested = { journal_mode: config.journal, synchronous: config.synchronous };
  if (config.journal === "WAL") {
    // On SQLite's OPFS VFSes WAL needs exclusive locking (no shared memory), else it stays in DELETE mode.
    pragma("PRAGMA locking_mode=EXCLUSIVE");
  }
  pragma(`PRAGMA journal_mode=${config.journal}`);
  db.exec(`PRAGMA synchronous=${config.synchronous}`);
  const reported = {
    journal_mode: String(pragma("PRAGMA journal_mode")).toUpperCase(),
    synchronous: ["OFF", "NORMAL", "FULL", "EXTRA"][Number(pragma("PRAGMA synchronous"))],
    locking_mode: String(pragma("PRAGMA locking_mode")).toUpperCase(),
    page_size: Number(pragma("PRAGMA page_size")),
    cache_size: Number(pragma("PRAGMA cache_size")),
  };
  if (reported.journal_mode !== config.journal || reported.synchronous !== config.synchronous) {
    throw new Error(`SQLite reports journal_mode=${reported.journal_mode} synchronous=${reported.synchronous}, asked for ${config.journal}/${config.synchronous}`);
  }
  const rowsOf = (stmt) => {
    const rows = [];
    while (stmt.step()) rows.push(stmt.get([]));
    return rows;
  };
  const runStmt = (stmt, params) => {
    stmt.reset(true);
    if (params && params.length > 0) stmt.bind(params);
    const rows = rowsOf(stmt);
    return { rows, changes: db.changes() };
  };
  return {
    info: { engine: "sqlite-wasm", version: sqlite3.version.libVersion, vfs: `opfs-sahpool (installed as "${pool.vfsName}")`, storage: "opfs", requested, reported },
    exec: async (sql) => {
      db.exec(sql);
    },
    query: async (sql, params) => {
      const stmt = db.prepare(sql);
      try {
        return runStmt(stmt, params).rows;
      } finally {
        stmt.finalize();
      }
    },
    async prepare(sql) {
      const stmt = db.prepare(sql);
      return { inner: stmt, run: async (params) => runStmt(stmt, params) };
    },
    async tx(fn) {
      db.exec("BEGIN");
      try {
        const r = await fn({ run: async (stmt, params) => runStmt(stmt.inner, params), query: async (sql, params) => this.query(sql, params) });
        db.exec("COMMIT");
        return r;
      } catch (e) {
        db.exec("ROLLBACK");
        throw e;
      }
    },
    begin: async () => {
      db.exec("BEGIN");
    },
    runInTx: async (stmt, params) => runStmt(stmt.inner, params),
    commit: async () => {
      db.exec("COMMIT");
    },
    close: async () => {
      db.close();
      pool.pauseVfs();
    },
  };
}

async function pgliteEngine(name, config) {
  const { PGlite } = await import(`${NM}@electric-sql/pglite/dist/index.js`);
  const storage = config.storage ?? "opfs-ahp";
  const dataDir = storage === "idb" ? `idb://${name}` : `opfs-ahp://${name}`;
  let pg;
  for (let attempt = 0; ; attempt++) {
    try {
      // bigint and numeric as JS numbers (our values fit), like the other engines return them.
      pg = await PGlite.create(dataDir, { parsers: { 20: (v) => Number(v), 1700: (v) => Number(v) } });
      break;
    } catch (e) {
      if (attempt >= 40) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const opt = { rowMode: "array" };
  const version = (await pg.query("SELECT version()", [], opt)).rows[0][0];
  return {
    info: { engine: "pglite", version: String(version), storage: storage === "idb" ? "indexeddb" : "opfs (opfs-ahp access handle pool)", dataDir, durability: "default (relaxedDurability: false)" },
    exec: async (sql) => {
      await pg.exec(sql);
    },
    query: async (sql, params) => (await pg.query(toPg(sql), params ?? [], opt)).rows,
    async prepare(sql) {
      // PGlite has no client-side prepared statement handle: the SQL is translated once here.
      const text = toPg(sql);
      return {
        text,
        run: async (params) => {
          const r = await pg.query(text, params ?? [], opt);
          return { rows: r.rows, changes: r.affectedRows ?? 0 };
        },
      };
    },
    tx: (fn) =>
      pg.transaction((t) =>
        fn({
          run: async (stmt, params) => {
            const r = await t.query(stmt.text, params ?? [], opt);
            return { rows: r.rows, changes: r.affectedRows ?? 0 };
          },
          query: async (sql, params) => (await t.query(toPg(sql), params ?? [], opt)).rows,
        }),
      ),
    begin: async () => {
      await pg.exec("BEGIN");
    },
    runInTx: async (stmt, params) => {
      const r = await pg.query(stmt.text, params ?? [], opt);
      return { rows: r.rows, changes: r.affectedRows ?? 0 };
    },
    commit: async () => {
      await pg.exec("COMMIT");
    },
    close: () => pg.close(),
  };
}

/** Opens database `name` on engine `spec` ({ engine, ...config }). */
export function openEngine(spec, name) {
  if (spec.engine === "tinyjoin") return tinyjoinEngine(name, spec);
  if (spec.engine === "sqlite") return sqliteEngine(name, spec);
  if (spec.engine === "pglite") return pgliteEngine(name, spec);
  throw new Error(`unknown engine ${spec.engine}`);
}
