// One engine in its own dedicated Worker, as a real app would run it. The
// page (compare.js) sends { id, op, args } and gets { id, ok, value | error }.
// Ops: open, exec, query, prepare, begin, runInTx, commit, workload, close.
import { openEngine } from "./engines.js";
import { SCALES, WORKLOADS } from "./workloads.js";

let db = null;
const stmts = [];

const ops = {
  async open({ spec, name }) {
    const t0 = performance.now();
    db = await openEngine(spec, name);
    return { openMs: performance.now() - t0, info: db.info };
  },
  exec: ({ sql }) => db.exec(sql),
  query: ({ sql, params }) => db.query(sql, params),
  async prepare({ sql }) {
    stmts.push(await db.prepare(sql));
    return stmts.length - 1;
  },
  begin: () => db.begin(),
  async runInTx({ stmt, params }) {
    return (await db.runInTx(stmts[stmt], params)).changes;
  },
  commit: () => db.commit(),
  workload: ({ name, scale, args }) => WORKLOADS[name](db, SCALES[scale], args ?? {}),
  async close() {
    if (db !== null) await db.close();
    db = null;
  },
};

onmessage = async (ev) => {
  const { id, op, args } = ev.data;
  try {
    const value = await ops[op](args ?? {});
    postMessage({ id, ok: true, value: value ?? null });
  } catch (e) {
    postMessage({ id, ok: false, error: `${(e && e.code) || ""} ${(e && e.stack) || e}`.trim() });
  }
};
postMessage({ id: 0, ok: true, value: "ready" });
