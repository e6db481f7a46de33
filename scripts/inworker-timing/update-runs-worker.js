// The timed side of update-runs.mjs: in a fresh Worker, opens the database
// (building it on the first message) and times I8's UPDATE five times on
// disjoint ranges of 10,000 rows, then I9's DELETE twice.
const UPDATE = "UPDATE a SET b = b + 1 WHERE id BETWEEN ? AND ?";
const DELETE = "DELETE FROM a WHERE id BETWEEN ? AND ?";

onmessage = async (ev) => {
  const { build, round } = ev.data;
  try {
    const { openInWorker } = await import("/pkg/dist/worker.js");
    const db = await openInWorker("update-runs");
    if (build) {
      await db.exec(
        "CREATE TABLE a(id INTEGER PRIMARY KEY, b INTEGER NOT NULL, c INTEGER NOT NULL, d INTEGER NOT NULL, e TEXT NOT NULL);" +
          "CREATE TABLE w(id INTEGER PRIMARY KEY, v TEXT NOT NULL)",
      );
      await db.exec(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000) " +
          "INSERT INTO a SELECT i, (i * 7919) % 1000, (i * 104729) % 1000, (i * 1299709) % 1000, " +
          "CASE i % 4 WHEN 0 THEN 'Alpha' WHEN 1 THEN 'BETA' WHEN 2 THEN 'gamma' ELSE 'DeLta' END || ((i * 31) % 250) FROM n",
      );
      await db.exec("CREATE INDEX a_b ON a(b); CREATE INDEX a_dc ON a(d, c); CREATE INDEX a_le ON a(lower(e))");
      await db.close();
      postMessage({});
      return;
    }
    // What the comparison's Worker has run before I8: reads through the
    // indexes and committed inserts (their code is warm there too).
    const look = await db.prepare("SELECT id, c FROM a WHERE b = ?");
    for (let i = 0; i < 50; i++) await look.run([i]);
    const ins = await db.prepare("INSERT INTO w(v) VALUES (?)");
    for (let i = 0; i < 20; i++) await ins.run([`warm ${i}`]);
    const upd = await db.prepare(UPDATE);
    const del = await db.prepare(DELETE);
    const out = {};
    // Ranges that move with the round: updates within ids 1-90,000, the
    // deletes of round r in 100,001 + 20,000 r and on (five rounds at most).
    const base = (round * 10_000) % 50_000;
    for (let r = 0; r < 5; r++) {
      const lo = base + r * 10_000;
      const t = performance.now();
      const res = await upd.run([lo + 1, lo + 10_000]);
      out[`update ${r + 1}`] = performance.now() - t;
      if (res.changes !== 10_000) throw new Error(`updated ${res.changes} rows`);
    }
    for (let r = 0; r < 2; r++) {
      const lo = 100_000 + round * 20_000 + r * 10_000;
      const t = performance.now();
      const res = await del.run([lo + 1, lo + 10_000]);
      out[`delete ${r + 1}`] = performance.now() - t;
      if (res.changes !== 10_000) throw new Error(`deleted ${res.changes} rows`);
    }
    await db.close();
    postMessage(out);
  } catch (e) {
    postMessage({ error: String((e && e.stack) || e) });
  }
};
