// A dedicated Worker of "the application" that opens a database directly
// with tinyjoin/worker (no election, exclusive OPFS access), exercises it,
// and reports the results (or the error code) to its page.
import { openInWorker } from "/pkg/dist/worker.js";

onmessage = async (ev) => {
  const name = ev.data;
  try {
    const db = await openInWorker(name);
    await db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
    await db.batch([["INSERT INTO t(v) VALUES (?)", ["one"]], ["INSERT INTO t(v) VALUES (?)", ["two"]]]);
    const file = await db.exportBytes();
    await db.run("DELETE FROM t");
    await db.importBytes(file);
    const rows = (await db.query("SELECT v FROM t ORDER BY id")).rows;
    const err = await db.query("SELECT * FROM missing").catch((e) => e.code);
    await db.close();
    postMessage({ ok: true, rows, err, exported: file.length });
  } catch (e) {
    postMessage({ ok: false, code: e.code, message: String(e.message) });
  }
};
