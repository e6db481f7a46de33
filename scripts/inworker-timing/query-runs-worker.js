// The timed side of query-runs.mjs: in this fresh Worker, opens one engine's
// database (timed) and either builds the comparison's read dataset or runs
// one of its queries several times, counting each run's OPFS calls.
import { since, snapshot } from "./opfs-calls-counter.js";
import { openEngine } from "/cmp/engines.js";
import { QUERIES, SCALES, WORKLOADS } from "/cmp/workloads.js";

onmessage = async (ev) => {
  const { spec, name, build, query, runs } = ev.data;
  try {
    const t0 = performance.now();
    const db = await openEngine(spec, name);
    const openMs = performance.now() - t0;
    const out = [];
    if (build) {
      await WORKLOADS.buildReadDataset(db, SCALES.full);
    } else {
      for (let k = 0; k < runs; k++) {
        const before = snapshot();
        const t1 = performance.now();
        await db.query(QUERIES[query].sql);
        out.push({ ms: performance.now() - t1, calls: since(before) });
      }
    }
    await db.close();
    postMessage({ openMs, runs: out });
  } catch (e) {
    postMessage({ error: String((e && e.stack) || e) });
  }
};
