// The timed side of first-statement.mjs: in a fresh Worker, loads the
// package from `/${variant}/` (client-ts/dist, or a copy of it), opens the
// database, and times its first statements.
const POINT_JOIN = "SELECT f.id, f.amount, s.name FROM f JOIN s ON f.s_id = s.id WHERE f.id = ?";

onmessage = async (ev) => {
  const { variant, build } = ev.data;
  try {
    let t = performance.now();
    const lap = () => {
      const now = performance.now();
      const ms = now - t;
      t = now;
      return ms;
    };
    const { openInWorker } = await import(`/${variant}/worker.js`);
    const out = { import: lap() };
    const db = await openInWorker("first-statement");
    out.open = lap();
    if (build) {
      await db.exec(
        "CREATE TABLE s(id INTEGER PRIMARY KEY, cat INTEGER NOT NULL, name TEXT NOT NULL);" +
          "CREATE TABLE f(id INTEGER PRIMARY KEY, s_id INTEGER NOT NULL, amount INTEGER NOT NULL);" +
          "CREATE TABLE m(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, payload TEXT NOT NULL)",
      );
      await db.exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000) INSERT INTO s SELECT i, i % 100, 'name-' || i FROM n");
      await db.exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000) INSERT INTO f SELECT i, 1 + (i * 7919) % 9000, (i * 31) % 1000 FROM n");
      await db.exec("CREATE INDEX f_s ON f(s_id)");
    } else {
      // J5's shape from its SQL text, as the comparison's first run sends it.
      await db.query(POINT_JOIN.replace("?", "4242"));
      out.firstQuery = lap();
      await db.query(POINT_JOIN.replace("?", "4243"));
      out.secondQuery = lap();
      // A 25-statement transaction of inserts, updates and deletes on a
      // table with a UNIQUE column, statements prepared first (as the
      // comparison's mixed transactions run).
      const ins = await db.prepare("INSERT INTO m(id, title, payload) VALUES (?, ?, ?)");
      const upd = await db.prepare("UPDATE m SET title = ? WHERE id = ?");
      const del = await db.prepare("DELETE FROM m WHERE id = ?");
      out.prepare3 = lap();
      const base = 1 + Math.floor(Math.random() * 1e9);
      await db.transaction(async (tx) => {
        for (let i = 0; i < 25; i += 3) {
          await tx.runPrepared(ins, [base + i, `t${base + i}`, "x".repeat(64)]);
          if (i + 1 < 25) await tx.runPrepared(upd, [`u${base + i}`, base + i]);
          if (i + 2 < 25) await tx.runPrepared(del, [base + i]);
        }
      });
      out.firstTransaction = lap();
    }
    await db.close();
    postMessage(out);
  } catch (e) {
    postMessage({ error: String((e && e.stack) || e) });
  }
};
