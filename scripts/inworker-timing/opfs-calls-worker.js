// The timed side of opfs-calls.mjs: one engine, its OPFS calls per workload.
import { since, snapshot } from "./opfs-calls-counter.js";
import { openEngine } from "/cmp/engines.js";
import { A_COLS, WORKLOADS, aRow, load, prng } from "/cmp/workloads.js";

onmessage = async (ev) => {
  const { spec, i8 } = ev.data;
  try {
    const out = [];
    const timed = async (label, f) => {
      const before = snapshot();
      const t0 = performance.now();
      await f();
      out.push({ label, ms: performance.now() - t0, calls: since(before) });
    };
    const db = await openEngine(spec, `opfs-calls-${Date.now()}`);
    // The comparison's bulk insert first (smaller), as before its durable
    // transactions; those timed without their CREATE TABLE (durableTxns'
    // loop: its own timing would count the CREATE's commit too).
    await WORKLOADS.bulkInsert(db, { kv: 2_000 });
    await db.exec("CREATE TABLE log(id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
    const ins = await db.prepare("INSERT INTO log(id, v) VALUES (?, ?)");
    await timed("200 durable transactions", async () => {
      for (let i = 1; i <= 200; i++) await ins.run([i, `entry ${i}`]);
    });
    if (i8) {
      await db.exec("CREATE TABLE a(id INTEGER PRIMARY KEY, b INTEGER NOT NULL, c INTEGER NOT NULL, d INTEGER NOT NULL, e TEXT NOT NULL)");
      await load(db, "a", A_COLS, 200_000, aRow(prng(6)));
      await db.exec("CREATE INDEX a_b ON a(b); CREATE INDEX a_dc ON a(d, c); CREATE INDEX a_le ON a(lower(e))");
      const upd = await db.prepare("UPDATE a SET b = b + 1 WHERE id BETWEEN ? AND ?");
      for (let k = 0; k < 4; k++) {
        const lo = 50_000 + k * 10_000;
        await timed(`I8 UPDATE 10k rows, round ${k + 1}`, async () => {
          const res = await upd.run([lo + 1, lo + 10_000]);
          if (res.changes !== 10_000) throw new Error(`I8 changed ${res.changes} rows`);
        });
      }
    }
    await db.close();
    postMessage(out);
  } catch (e) {
    postMessage({ error: String((e && e.stack) || e) });
  }
};
