// A dedicated Worker for the crash-safe import tests. Mode "import": opens
// database `name` with tinyjoin/worker (50 "old" rows), builds a database of
// 80 "new" rows of 40 KiB (about 3.5 MB, several write chunks) in a scratch
// database, installs the import step hook so that reaching `step` reports
// { at: step } to the page and then spins until the page terminates this
// Worker (a crash at that point: no cleanup, no unload), and imports. Mode
// "check": reopens `name` and reports its rows, the full check, and the
// database's OPFS files.
import { openInWorker } from "/pkg/dist/worker.js";

async function files(name) {
  const root = await navigator.storage.getDirectory();
  const prefix = `${encodeURIComponent(name)}.tinyjoin`;
  const out = [];
  for await (const f of root.keys()) if (f.startsWith(prefix)) out.push(f);
  return out.sort();
}

onmessage = async (ev) => {
  const { mode, name, step, twice } = ev.data;
  try {
    if (mode === "import") {
      const src = await openInWorker(`${name}-src`);
      await src.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT, pad BLOB)");
      await src.transaction(async (tx) => {
        for (let i = 1; i <= 80; i++) await tx.run("INSERT INTO t(v, pad) VALUES (?, zeroblob(40960))", [`new-${i}`]);
      });
      const bytes = await src.exportBytes();
      await src.close();
      const db = await openInWorker(name);
      await db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT, pad BLOB)");
      await db.transaction(async (tx) => {
        for (let i = 1; i <= 50; i++) await tx.run("INSERT INTO t(v) VALUES (?)", [`old-${i}`]);
      });
      const before = await files(name);
      globalThis.__tinyjoinImportFault = (s) => {
        if (s !== step) return;
        postMessage({ at: s, before, size: bytes.length });
        for (;;) {
          // Spin: the page terminates this Worker here.
        }
      };
      await db.importBytes(bytes);
      if (twice) await db.importBytes(bytes);
      const rows = (await db.query("SELECT count(*) FROM t")).rows;
      await db.close();
      postMessage({ ok: true, done: true, rows, before, size: bytes.length });
    } else {
      const db = await openInWorker(name);
      const rows = (await db.query("SELECT count(*), min(v), max(v) FROM t WHERE v LIKE 'old-%' OR v LIKE 'new-%'")).rows;
      const all = (await db.query("SELECT count(*) FROM t")).rows;
      const check = await db.check();
      await db.close();
      postMessage({
        ok: true,
        rows,
        all,
        problems: check.problems.length,
        files: await files(name),
        move: typeof FileSystemFileHandle !== "undefined" && typeof FileSystemFileHandle.prototype.move,
      });
    }
  } catch (e) {
    postMessage({ ok: false, code: e && e.code, message: String(e && e.message) });
  }
};
