// The browser tests (run.mjs runs them in order, each with fresh tabs).
// Each test's first comment says what it covers. Helpers at the top.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";

let dbCounter = 0;
/** A database name unique to this run, so tests never see each other's data. */
const freshName = (what) => `${what}-${Date.now().toString(36)}-${++dbCounter}`;

/** Evaluates `fn(arg)` in the page, where errors come back as { ok: false, code, message }. */
async function inPage(page, fn, arg) {
  // A string expression is evaluated by the DevTools protocol, not by the
  // page's eval, so the page's CSP (no 'unsafe-eval') does not apply.
  return page.evaluate(`window.attempt(() => (${fn.toString()})(${JSON.stringify(arg ?? null)}))`);
}

/** Like inPage, but throws on failure and returns the value. */
async function must(page, fn, arg) {
  const r = await inPage(page, fn, arg);
  if (!r.ok) throw new Error(`in page: ${r.code ?? r.name}: ${r.message}`);
  return r.value;
}

export const tests = [
  {
    // The OPFS Device keeps the Device contract (write/read/flush/len/truncate,
    // reads past the end zero-filled), run by the real built wasm in a real
    // dedicated Worker against a real OPFS file.
    name: "opfs device contract in a Worker",
    async run(env) {
      const tab = await env.tab();
      const r = await tab.evaluate(() => window.runDeviceContract());
      assert.equal(r.ok, true, r.message);
      assert.ok(r.passed >= 10, `only ${r.passed} checks ran`);
      assert.equal(r.size, 0, "the contract leaves the file empty");
    },
  },
  {
    // One tab: schema, writes, queries, errors with codes; reload: data
    // present; browser restarted on the same profile: data present.
    name: "one tab: open, exec, query, reload, restart",
    async run(env) {
      const name = freshName("one");
      const tab = await env.tab();
      const first = await must(tab, async (name) => {
        const db = await tinyjoin.open(name);
        await db.exec("CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT UNIQUE, body BLOB)");
        await db.transaction(async (tx) => {
          await tx.run("INSERT INTO note(title, body) VALUES (?, ?)", ["a", new Uint8Array([1, 2, 3])]);
          await tx.run("INSERT INTO note(title, body) VALUES (?, ?)", ["b", null]);
        });
        const dup = await window.attempt(() => db.run("INSERT INTO note(title) VALUES ('a')"));
        const syntax = await window.attempt(() => db.query("SELECT * FORM note"));
        const r = await db.query("SELECT id, title, body FROM note WHERE id > ? ORDER BY id", [0]);
        window.db = db;
        return { role: db.role, dup: dup.code, syntax: [syntax.code, typeof syntax.message], columns: r.columns, rows: r.rows.map((row) => [row[0], row[1], row[2] === null ? null : Array.from(row[2])]) };
      }, name);
      assert.equal(first.role, "owner");
      assert.equal(first.dup, "CONSTRAINT_UNIQUE");
      assert.deepEqual(first.syntax, ["SQL_SYNTAX", "string"]);
      assert.deepEqual(first.columns, ["id", "title", "body"]);
      assert.deepEqual(first.rows, [[1, "a", [1, 2, 3]], [2, "b", null]]);
      const readBack = (page) => must(page, async (name) => {
        const db = await tinyjoin.open(name);
        const r = await db.query("SELECT title FROM note ORDER BY id");
        await db.close();
        return r.rows.map((row) => row[0]);
      }, name);
      await env.reload(tab);
      assert.deepEqual(await readBack(tab), ["a", "b"], "after reload");
      await env.restartBrowser();
      assert.deepEqual(await readBack(await env.tab()), ["a", "b"], "after a browser restart");
    },
  },
  {
    // Three tabs of one name: exactly one owner; identical results for the
    // same query in every tab; a write committed in any tab is visible in all.
    name: "three tabs: one owner, same results, writes visible everywhere",
    async run(env) {
      const name = freshName("three");
      const tabs = [await env.tab(), await env.tab(), await env.tab()];
      const roles = [];
      for (const t of tabs) roles.push(await must(t, async (name) => ((window.db = await tinyjoin.open(name)), window.db.role), name));
      assert.deepEqual([...roles].sort(), ["follower", "follower", "owner"]);
      await must(tabs[0], () => window.db.exec("CREATE TABLE IF NOT EXISTS kv(k TEXT PRIMARY KEY, v INTEGER)"));
      for (let i = 0; i < 3; i++) await must(tabs[i], (i) => window.db.run("INSERT INTO kv VALUES (?, ?)", [`k${i}`, i]), i);
      const results = [];
      for (const t of tabs) results.push(await must(t, async () => (await window.db.query("SELECT k, v FROM kv ORDER BY k")).rows));
      assert.deepEqual(results[0], [["k0", 0], ["k1", 1], ["k2", 2]]);
      assert.deepEqual(results[1], results[0]);
      assert.deepEqual(results[2], results[0]);
    },
  },
  {
    // Polling (OpenOptions.pollMs, client-ts/src/poll.ts) changes when
    // threads sleep, never what is answered: an owner tab with it off and a
    // follower with it on (its own requests go over the channel, which is
    // not polled for; the owner's Worker takes its tab's value) run a
    // transaction of 300 statements each, in turn, and both read the same
    // rows; a bad value is refused.
    name: "polling off in the owner, on in a follower: same answers",
    async run(env) {
      const name = freshName("poll");
      const tabs = [await env.tab(), await env.tab()];
      const roles = [];
      for (const [i, pollMs] of [[0, 0], [1, 5]]) {
        roles.push(await must(tabs[i], async ({ name, pollMs }) => ((window.db = await tinyjoin.open(name, { pollMs })), window.db.role), { name, pollMs }));
      }
      assert.deepEqual(roles, ["owner", "follower"]);
      await must(tabs[0], () => window.db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, tab INTEGER, v TEXT)"));
      for (const i of [0, 1]) {
        await must(tabs[i], async (i) => {
          const ins = await window.db.prepare("INSERT INTO t(tab, v) VALUES (?, ?)");
          await window.db.transaction(async (tx) => {
            for (let k = 0; k < 300; k++) await tx.runPrepared(ins, [i, `v${k}`]);
          });
        }, i);
      }
      const read = (t) => must(t, async () => (await window.db.query("SELECT tab, count(*), min(v), max(id) FROM t GROUP BY tab ORDER BY tab")).rows);
      const expected = [[0, 300, "v0", 300], [1, 300, "v0", 600]];
      assert.deepEqual(await read(tabs[0]), expected);
      assert.deepEqual(await read(tabs[1]), expected);
      const bad = await must(tabs[1], async () => (await window.attempt(() => tinyjoin.open("poll-bad", { pollMs: -1 }))).code);
      assert.equal(bad, "INVALID_ARGUMENT");
    },
  },
  {
    // Contention: three tabs each run N transactions that read a counter and
    // write it back +1: the final value is exactly 3N (no lost update, no deadlock).
    name: "contention: 3 tabs x 100 read-modify-write transactions",
    async run(env) {
      const name = freshName("counter");
      const N = 100;
      const tabs = [await env.tab(), await env.tab(), await env.tab()];
      for (const t of tabs) await must(t, async (name) => void (window.db = await tinyjoin.open(name)), name);
      await must(tabs[0], () => window.db.batch(["CREATE TABLE c(id INTEGER PRIMARY KEY, n INTEGER)", "INSERT INTO c VALUES (1, 0)"]));
      await Promise.all(
        tabs.map((t) =>
          must(t, async (N) => {
            for (let i = 0; i < N; i++) {
              await window.db.transaction(async (tx) => {
                const n = (await tx.query("SELECT n FROM c WHERE id = 1")).rows[0][0];
                await tx.run("UPDATE c SET n = ? WHERE id = 1", [n + 1]);
              });
            }
          }, N),
        ),
      );
      const n = await must(tabs[1], async () => (await window.db.query("SELECT n FROM c")).rows[0][0]);
      assert.equal(n, 3 * N);
    },
  },
  {
    // The owner's tab is closed in the middle of a follower's transaction:
    // that transaction rejects with OWNER_LOST and is absent; a follower
    // becomes owner; committed data is present; reads go on.
    name: "owner tab closed: failover, OWNER_LOST for the open transaction, committed data kept",
    async run(env) {
      const name = freshName("failover");
      const owner = await env.tab();
      const f1 = await env.tab();
      const f2 = await env.tab();
      await must(owner, async (name) => {
        window.db = await tinyjoin.open(name);
        await window.db.exec("CREATE TABLE t(v TEXT)");
        await window.db.run("INSERT INTO t VALUES ('committed')");
      }, name);
      for (const f of [f1, f2]) {
        const role = await must(f, async (name) => {
          window.db = await tinyjoin.open(name);
          window.roles = [];
          window.db.onRoleChange((r) => window.roles.push(r));
          return window.db.role;
        }, name);
        assert.equal(role, "follower");
      }
      // f1 opens a transaction and writes, then waits for a signal that never comes before the owner dies.
      await must(f1, () => {
        window.txOutcome = new Promise((resolve) => {
          let entered;
          window.entered = new Promise((r) => (entered = r));
          window.db
            .transaction(async (tx) => {
              await tx.run("INSERT INTO t VALUES ('uncommitted')");
              entered();
              await new Promise((r) => (window.proceed = r));
              await tx.run("INSERT INTO t VALUES ('after')");
            })
            .then(() => resolve("committed"), (e) => resolve(e.code));
        });
        return window.entered;
      });
      await owner.close();
      await must(f1, () => window.proceed());
      assert.equal(await must(f1, () => window.txOutcome), "OWNER_LOST");
      const after = [];
      for (const f of [f1, f2]) after.push(await must(f, async () => ({ rows: (await window.db.query("SELECT v FROM t")).rows })));
      // A follower's read can be answered before the election settles (the
      // closed tab's Worker may still serve for a moment): wait for the event.
      const becameOwner = () =>
        new Promise((resolve) => {
          if (window.db.role === "owner") resolve(true);
          window.db.onRoleChange((r) => r === "owner" && resolve(true));
        });
      let timer;
      const timeout = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("no tab became owner within 10 s")), 10_000)));
      try {
        await Promise.race([must(f1, becameOwner), must(f2, becameOwner), timeout]);
      } finally {
        clearTimeout(timer);
      }
      const roles = [];
      for (const f of [f1, f2]) roles.push(await must(f, () => ({ role: window.db.role, epoch: window.db.epoch, history: window.roles })));
      assert.deepEqual(roles.map((a) => a.role).sort(), ["follower", "owner"], JSON.stringify(roles));
      for (const a of after) assert.deepEqual(a.rows, [["committed"]]);
      await must(f2, () => window.db.run("INSERT INTO t VALUES ('new owner works')"));
      assert.deepEqual(await must(f1, async () => (await window.db.query("SELECT count(*) FROM t")).rows[0][0]), 2);
      assert.deepEqual(await must(f1, async () => (await window.db.check()).problems), [], "validation passes after failover");
    },
  },
  {
    // A follower's tab is closed in the middle of its transaction: the owner
    // rolls it back, and another tab's transaction (queued behind it) proceeds.
    name: "follower tab closed mid-transaction: rolled back, others proceed",
    async run(env) {
      const name = freshName("follower-dies");
      const owner = await env.tab();
      const dying = await env.tab();
      const other = await env.tab();
      await must(owner, async (name) => {
        window.db = await tinyjoin.open(name);
        await window.db.exec("CREATE TABLE t(v TEXT)");
      }, name);
      for (const f of [dying, other]) await must(f, async (name) => void (window.db = await tinyjoin.open(name)), name);
      await must(dying, () => {
        let entered;
        window.entered = new Promise((r) => (entered = r));
        window.db.transaction(async (tx) => {
          await tx.run("INSERT INTO t VALUES ('from the dead')");
          entered();
          await new Promise(() => undefined);
        });
        return window.entered;
      });
      await must(other, () => {
        window.queued = window.db.transaction((tx) => tx.run("INSERT INTO t VALUES ('alive')"));
      });
      await dying.close();
      await must(other, () => window.queued);
      assert.deepEqual(await must(owner, async () => (await window.db.query("SELECT v FROM t")).rows), [["alive"]]);
    },
  },
  {
    // Bad input from a tab: garbage on the channel, unknown kinds, truncated
    // messages, invalid UTF-8, a huge parameter: the owner keeps serving, and
    // a huge parameter through the API is a typed error or works.
    name: "bad input on the channel: the owner keeps serving",
    async run(env) {
      const name = freshName("bad-input");
      const owner = await env.tab();
      const rogue = await env.tab();
      await must(owner, async (name) => {
        window.db = await tinyjoin.open(name);
        await window.db.exec("CREATE TABLE t(v)");
      }, name);
      await must(rogue, async (name) => {
        const ch = new BroadcastChannel(`tinyjoin:${name}`);
        ch.postMessage("hello");
        ch.postMessage({ kind: "query" });
        ch.postMessage(new Uint8Array([0x54, 1, 0x7f, 1, 0, 0, 0, 1, 0x41, 1, 0, 0, 0]));
        ch.postMessage(new Uint8Array([0x54, 1, 0x03, 1, 0, 0, 0, 1, 0x41, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]));
        ch.postMessage(new Uint8Array([0x54, 1, 0x04, 1, 0, 0, 0, 1, 0x41, 1, 0, 0, 0, 2, 0, 0, 0, 0xff, 0xfe]));
        ch.postMessage(new Uint8Array(0));
        ch.close();
      }, name);
      const big = await must(rogue, async (name) => {
        window.db = await tinyjoin.open(name);
        const r = await window.attempt(() => window.db.run("INSERT INTO t VALUES (?)", ["x".repeat(4 << 20)]));
        return r.ok ? "ok" : r.code;
      }, name);
      assert.ok(big === "ok" || big === "BATCH_LIMIT_EXCEEDED" || big === "TOO_LARGE", big);
      await must(owner, () => window.db.run("INSERT INTO t VALUES ('still serving')"));
      const n = await must(rogue, async () => (await window.db.query("SELECT count(*) FROM t WHERE v = 'still serving'")).rows[0][0]);
      assert.equal(n, 1);
    },
  },
  {
    // 5,000 rows of 1 KiB in one transaction commit under the default 16 MiB
    // batch limit, and the memory storage is private to its client.
    name: "5,000 x 1 KiB in one transaction; memory storage",
    async run(env) {
      const name = freshName("bulk");
      const tab = await env.tab();
      const r = await must(tab, async (name) => {
        const db = await tinyjoin.open(name);
        await db.exec("CREATE TABLE big(id INTEGER PRIMARY KEY, payload TEXT)");
        const payload = "p".repeat(1024);
        await db.transaction(async (tx) => {
          const stmt = "INSERT INTO big(payload) VALUES (?)";
          for (let i = 0; i < 5000; i++) await tx.run(stmt, [payload]);
        });
        const n = (await db.query("SELECT count(*), sum(length(payload)) FROM big")).rows[0];
        const mem = await tinyjoin.open(name, { storage: "memory" });
        const memTables = await window.attempt(() => mem.query("SELECT count(*) FROM big"));
        await mem.exec("CREATE TABLE only_here(x)");
        await mem.close();
        return { n, memRole: mem.role, memTables: memTables.code };
      }, name);
      assert.deepEqual(r.n, [5000, 5000 * 1024]);
      assert.equal(r.memRole, "owner");
      assert.equal(r.memTables, "SQL_ERROR", "the memory database is its own: no table big there");
    },
  },
  {
    // Sorts and CREATE INDEX over data 4x the batch limit complete: their
    // sorted runs go to the database's OPFS scratch file, and the results
    // are in order.
    name: "sorts past the batch limit spill to the OPFS scratch file",
    async run(env) {
      const name = freshName("spill");
      const tab = await env.tab();
      const r = await must(tab, async (name) => {
        const db = await tinyjoin.open(name, { batchLimitBytes: 1 << 20 });
        await db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, payload TEXT)");
        // In slices: a CTE's rows are held in memory and charged.
        for (let k = 0; k < 20000; k += 1000) {
          await db.exec(
            `WITH RECURSIVE c(x) AS (SELECT ${k + 1} UNION ALL SELECT x + 1 FROM c WHERE x < ${k + 1000}) ` +
              "INSERT INTO t(id, payload) SELECT x, printf('%08d', (x * 7919) % 20000) || hex(zeroblob(96)) FROM c",
          );
        }
        const ids = (await db.query("SELECT id FROM t ORDER BY payload DESC")).rows.map((row) => row[0]);
        await db.exec("CREATE INDEX t_payload ON t(payload)");
        const first = (await db.query("SELECT id FROM t ORDER BY payload LIMIT 3")).rows.map((row) => row[0]);
        const check = await db.check();
        await db.close();
        return { ids, first, problems: check.problems ?? check };
      }, name);
      const key = (x) => (x * 7919) % 20000;
      const expected = Array.from({ length: 20000 }, (_, i) => i + 1).sort((a, b) => key(b) - key(a));
      assert.equal(r.ids.length, 20000);
      assert.deepEqual(r.ids, expected);
      assert.deepEqual(r.first, expected.slice(-3).reverse());
      assert.deepEqual(r.problems, []);
    },
  },
  {
    // Fail closed: without OPFS, open rejects with STORAGE_UNAVAILABLE and
    // never falls back to memory.
    name: "no OPFS: STORAGE_UNAVAILABLE",
    async run(env) {
      const tab = await env.tab();
      const r = await inPage(tab, async () => {
        Object.defineProperty(navigator, "storage", { value: undefined, configurable: true });
        return tinyjoin.open("no-opfs");
      });
      assert.equal(r.ok, false);
      assert.equal(r.code, "STORAGE_UNAVAILABLE");
    },
  },
  {
    // The owner's tab is closed while a follower commits in a loop, at a
    // random instant, several times over (each time the follower becomes
    // owner and a new tab follows): every commit's promise either resolved
    // and its row is there, or rejected with OWNER_LOST and it is not —
    // never both, never neither.
    name: "owner closed during follower commits: each commit resolves and is present, or rejects and is absent",
    async run(env) {
      const name = freshName("commit-race");
      let owner = await env.tab();
      await must(owner, async (name) => {
        window.db = await tinyjoin.open(name);
        await window.db.exec("CREATE TABLE t(id TEXT PRIMARY KEY)");
      }, name);
      const outcomes = { resolved: [], rejected: [] };
      for (let round = 0; round < 5; round++) {
        const follower = await env.tab();
        await must(follower, async ({ name, round }) => {
          window.db = await tinyjoin.open(name);
          window.outcomes = { resolved: [], rejected: [], other: [] };
          window.stop = false;
          window.loop = (async () => {
            for (let i = 0; !window.stop; i++) {
              const id = `r${round}-${i}`;
              try {
                await window.db.transaction((tx) => tx.run("INSERT INTO t VALUES (?)", [id]));
                window.outcomes.resolved.push(id);
              } catch (e) {
                (e.code === "OWNER_LOST" ? window.outcomes.rejected : window.outcomes.other).push(`${id}:${e.code}`);
              }
            }
          })();
        }, { name, round });
        const k = 1 + Math.floor(Math.random() * 20);
        await follower.waitForFunction((k) => window.outcomes.resolved.length >= k, k);
        await owner.close();
        // The loop goes on against the new owner (this very tab); stop after a few more commits.
        await follower.waitForFunction(() => window.db.role === "owner" && window.outcomes.resolved.length > 0);
        const before = await must(follower, () => window.outcomes.resolved.length);
        await follower.waitForFunction((n) => window.outcomes.resolved.length >= n + 3, before);
        const o = await must(follower, async () => {
          window.stop = true;
          await window.loop;
          return window.outcomes;
        });
        assert.deepEqual(o.other, [], "no other error than OWNER_LOST");
        outcomes.resolved.push(...o.resolved);
        outcomes.rejected.push(...o.rejected.map((r) => r.split(":")[0]));
        owner = follower;
      }
      const present = new Set(await must(owner, async () => (await window.db.query("SELECT id FROM t")).rows.map((r) => r[0])));
      for (const id of outcomes.resolved) assert.ok(present.has(id), `${id} resolved but is absent`);
      for (const id of outcomes.rejected) assert.ok(!present.has(id), `${id} rejected but is present`);
      assert.equal(present.size, outcomes.resolved.length, "nothing is present that did not resolve");
      console.log(`    ${outcomes.resolved.length} commits resolved, ${outcomes.rejected.length} rejected with OWNER_LOST`);
    },
  },
  {
    // A page of the OPFS file is overwritten: open rejects with CORRUPT
    // naming that page; the tab does not crash; other databases keep working.
    name: "corrupt page: open rejects with CORRUPT naming the page, others keep working",
    async run(env) {
      const name = freshName("corrupt");
      const tab = await env.tab();
      const r = await must(tab, async (name) => {
        const db = await tinyjoin.open(name);
        await db.exec("CREATE TABLE t(v TEXT)");
        await db.run("INSERT INTO t VALUES (?)", ["MARKER-" + "z".repeat(200)]);
        await db.close();
        // Find the page(s) holding the row and flip their bytes, through the async OPFS API.
        const root = await navigator.storage.getDirectory();
        const fh = await root.getFileHandle(`${encodeURIComponent(name)}.tinyjoin`);
        const bytes = new Uint8Array(await (await fh.getFile()).arrayBuffer());
        const needle = new TextEncoder().encode("MARKER-zzzz");
        const pages = new Set();
        for (let i = 0; i + needle.length <= bytes.length; i++) {
          let hit = true;
          for (let j = 0; j < needle.length && hit; j++) hit = bytes[i + j] === needle[j];
          if (hit) pages.add(Math.floor(i / 4096));
        }
        const w = await fh.createWritable({ keepExistingData: true });
        for (const p of pages) {
          const page = bytes.slice(p * 4096, p * 4096 + 4096).map((b, i) => (i > 64 ? b ^ 0x5a : b));
          await w.write({ type: "write", position: p * 4096, data: page });
        }
        await w.close();
        const opened = await window.attempt(() => tinyjoin.open(name));
        const other = await tinyjoin.open(`${name}-other`);
        await other.exec("CREATE TABLE ok(x)");
        await other.run("INSERT INTO ok VALUES (1)");
        const okRows = (await other.query("SELECT x FROM ok")).rows;
        return { pages: [...pages], opened, okRows };
      }, name);
      assert.ok(r.pages.length > 0, "the row was found in the file");
      assert.equal(r.opened.ok, false, "a corrupt database does not open");
      assert.equal(r.opened.code, "CORRUPT", r.opened.message);
      assert.ok(r.pages.some((p) => r.opened.message.includes(`page ${p}`)), `${r.opened.message} names one of pages ${r.pages}`);
      assert.deepEqual(r.okRows, [[1]]);
    },
  },
  // The browser process is killed (SIGKILL) during a loop of committed
  // transactions; relaunched on the same profile, every transaction whose
  // commit resolved is present, and the file opens (full validation). Once
  // per commit protocol (the `commit` open option); "deferred" flushes only
  // within 100 ms of a commit (or at `sync()`, called every tenth commit),
  // but a browser crash does not lose what its writes handed to the OS.
  ...["two-flush", "one-flush", "deferred"].map((commit) => ({
    name: `browser SIGKILLed during ${commit} commits: every resolved commit survives`,
    async run(env) {
      const name = freshName("sigkill");
      const tab = await env.tab();
      const resolved = [];
      tab.on("console", (m) => {
        const hit = /^committed (\d+)$/.exec(m.text());
        if (hit) resolved.push(Number(hit[1]));
      });
      await must(tab, async ({ name, commit }) => {
        const db = await tinyjoin.open(name, { commit });
        await db.exec("CREATE TABLE t(i INTEGER PRIMARY KEY, pad TEXT)");
        void (async () => {
          for (let i = 0; ; i++) {
            await db.transaction((tx) => tx.run("INSERT INTO t VALUES (?, ?)", [i, "x".repeat(500)]));
            // Every tenth commit also asks for durability now (SYNC).
            if (i % 10 === 9) await db.sync();
            console.log(`committed ${i}`);
          }
        })();
      }, { name, commit });
      const k = 20 + Math.floor(Math.random() * 60);
      await new Promise((resolve) => {
        const check = () => (resolved.length >= k ? resolve() : tab.once("console", check));
        check();
      });
      await env.killBrowser();
      const tab2 = await env.tab();
      const present = await must(tab2, async ({ name, commit }) => {
        const db = await tinyjoin.open(name, { commit });
        const problems = (await db.check()).problems;
        if (problems.length > 0) throw new Error(`check found ${JSON.stringify(problems)}`);
        return (await db.query("SELECT i FROM t ORDER BY i")).rows.map((r) => r[0]);
      }, { name, commit });
      const have = new Set(present);
      for (const i of resolved) assert.ok(have.has(i), `commit ${i} resolved before the kill but is missing`);
      console.log(`    ${resolved.length} commits resolved before the kill, ${present.length} present after`);
    },
  })),
  {
    // Reload storm: tabs are reloaded and closed rapidly while another tab
    // writes; every open resolves or fails with a typed error (the test's
    // time bound catches a hang on a stuck sync access handle), and every
    // write whose promise resolved is present at the end.
    name: "reload storm while another tab writes",
    async run(env) {
      const name = freshName("storm");
      const openIn = (t) => inPage(t, async (name) => void (window.db = await tinyjoin.open(name)), name);
      const storm = [await env.tab(), await env.tab()];
      for (const t of storm) assert.ok((await openIn(t)).ok);
      await must(storm[0], () => window.db.exec("CREATE TABLE IF NOT EXISTS t(id TEXT PRIMARY KEY)"));
      const writer = await env.tab();
      assert.ok((await openIn(writer)).ok);
      await must(writer, () => {
        window.done = [];
        window.errors = [];
        window.stop = false;
        window.loop = (async () => {
          for (let i = 0; !window.stop; i++) {
            try {
              await window.db.run("INSERT INTO t VALUES (?)", [`w${i}`]);
              window.done.push(`w${i}`);
            } catch (e) {
              window.errors.push(e.code);
            }
          }
        })();
      });
      const typedOpenErrors = [];
      for (let round = 0; round < 12; round++) {
        const i = Math.floor(Math.random() * storm.length);
        if (Math.random() < 0.5) {
          await env.reload(storm[i]);
        } else {
          await storm[i].close();
          storm[i] = await env.tab();
        }
        const r = await openIn(storm[i]);
        if (!r.ok) typedOpenErrors.push(r.code);
      }
      for (const code of typedOpenErrors) assert.ok(typeof code === "string" && code.length > 0, `open failed without a code: ${code}`);
      const before = await must(writer, () => window.done.length);
      await writer.waitForFunction((n) => window.done.length >= n + 5, before);
      const { done, errors } = await must(writer, async () => {
        window.stop = true;
        await window.loop;
        return { done: window.done, errors: window.errors };
      });
      assert.deepEqual(errors, [], "autocommit writes are retried through failover, never rejected");
      const present = new Set(await must(writer, async () => (await window.db.query("SELECT id FROM t")).rows.map((r) => r[0])));
      for (const id of done) assert.ok(present.has(id), `${id} resolved but is missing`);
      console.log(`    ${done.length} writes during the storm; typed open failures: ${typedOpenErrors.join(", ") || "none"}`);
    },
  },
  {
    // The packed package (npm pack) installed into a temporary consumer app,
    // used (a) bundled by esbuild and (b) from a plain <script type=module>,
    // under `script-src 'self' 'wasm-unsafe-eval'`, with no request leaving
    // the local server.
    name: "npm pack: consumer app, bundled and plain, under a restrictive CSP",
    async run(env) {
      const dir = mkdtempSync(join(tmpdir(), "tinyjoin-consumer-"));
      try {
        const pkgDir = join(env.root, "client-ts");
        const tgz = execFileSync("npm", ["pack", "--silent", "--pack-destination", dir], { cwd: pkgDir, encoding: "utf8" }).trim().split("\n").pop();
        writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
        execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--silent", join(dir, tgz)], { cwd: dir });
        const app = `import { open } from "tinyjoin";
          const db = await open("consumer-" + Date.now());
          await db.exec("CREATE TABLE t(x)");
          await db.run("INSERT INTO t VALUES (?)", ["bundled"]);
          window.result = { role: db.role, rows: (await db.query("SELECT x FROM t")).rows };`;
        writeFileSync(join(dir, "app.js"), app);
        const esbuild = join(env.root, "node_modules/.bin/esbuild");
        const dist = join(dir, "node_modules/tinyjoin/dist");
        execFileSync(esbuild, ["app.js", "--bundle", "--format=esm", "--log-level=error", "--outfile=out/app.js"], { cwd: dir });
        // The documented recipe for esbuild: bundle the owner Worker too, and put the wasm beside it.
        execFileSync(esbuild, [join(dist, "owner-worker.js"), "--bundle", "--format=esm", "--log-level=error", "--outfile=out/owner-worker.js"], { cwd: dir });
        copyFileSync(join(dist, "wasm/tinyjoin_worker_bg.wasm"), join(dir, "out/tinyjoin_worker_bg.wasm"));
        writeFileSync(join(dir, "out/index.html"), '<!doctype html><meta charset="utf-8"><script type="module" src="./app.js"></script>');
        writeFileSync(join(dir, "plain.html"), '<!doctype html><meta charset="utf-8"><script type="module" src="./plain.js"></script>');
        writeFileSync(join(dir, "plain.js"), app.replace('from "tinyjoin"', 'from "./node_modules/tinyjoin/dist/index.js"').replace('"bundled"', '"plain"'));
        env.mount("consumer", dir);
        for (const [path, want] of [["/consumer/out/index.html", "bundled"], ["/consumer/plain.html", "plain"]]) {
          const page = await env.page(path, () => window.result !== undefined);
          const result = await page.evaluate(() => window.result);
          assert.deepEqual(result, { role: "owner", rows: [[want]] }, path);
          assert.ok(page.requestsSeen.some((u) => u.endsWith(".wasm")), "the wasm was fetched (and seen)");
          for (const url of page.requestsSeen) assert.ok(url.startsWith(env.origin), `request left the local server: ${url}`);
          await page.close();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
  {
    // tinyjoin/worker inside an application's own dedicated Worker, on OPFS:
    // the same statements, values and errors; export then import round-trips.
    name: "in-worker API on OPFS: batch, export, import, errors",
    async run(env) {
      const name = freshName("inworker");
      const tab = await env.tab();
      const r = await tab.evaluate(
        (name) =>
          new Promise((resolve) => {
            const w = new Worker("/t/inworker-worker.js", { type: "module" });
            w.onmessage = (ev) => {
              w.terminate();
              resolve(ev.data);
            };
            w.onerror = (ev) => resolve({ ok: false, message: ev.message });
            w.postMessage(name);
          }),
        name,
      );
      assert.equal(r.ok, true, `${r.code}: ${r.message}`);
      assert.deepEqual(r.rows, [["one"], ["two"]]);
      assert.equal(r.err, "SQL_ERROR");
      assert.ok(r.exported > 0);
    },
  },
  {
    // Crash-safe import: a Worker importing a 3.5 MB file is killed at each
    // step of the import (new file created, partly written, flushed, opened
    // and checked, manifest switched, old file deleted) through the test
    // hook; reopened, the database is wholly old before the manifest switch
    // and wholly new from it on, passes the full check, and only the current
    // file and the manifest are left. Two imports in a row use both
    // manifest slots.
    name: "import killed at every step: the database is old or new, never corrupt",
    async run(env) {
      const tab = await env.tab();
      const inWorker = (msg) =>
        tab.evaluate(
          (msg) =>
            new Promise((resolve) => {
              const w = new Worker("/t/import-crash-worker.js", { type: "module" });
              w.onmessage = (ev) => {
                w.terminate();
                resolve(ev.data);
              };
              w.onerror = (ev) => {
                w.terminate();
                resolve({ ok: false, message: ev.message });
              };
              w.postMessage(msg);
            }),
          msg,
        );
      const steps = [
        ["created", "old"],
        ["partial", "old"],
        ["flushed", "old"],
        ["staged", "old"],
        ["switched", "new"],
        ["cleaned", "new"],
        [null, "new"],
      ];
      for (const [step, expect] of steps) {
        const name = freshName(`import-crash-${step}`);
        const enc = encodeURIComponent(name);
        const r = await inWorker({ mode: "import", name, step });
        if (step === null) assert.equal(r.done, true, `${r.code}: ${r.message}`);
        // The old file is deleted after the import resolved, so the Worker may finish first.
        else if (step === "cleaned") assert.ok(r.at === step || r.done === true, JSON.stringify(r));
        else assert.equal(r.at, step, `the import reached ${step}: ${JSON.stringify(r)}`);
        assert.deepEqual(r.before, [`${enc}.tinyjoin`, `${enc}.tinyjoin-manifest`, `${enc}.tinyjoin-temp`]);
        const c = await inWorker({ mode: "check", name });
        assert.equal(c.ok, true, `${step}: ${c.code}: ${c.message}`);
        const [count, min, max] = c.rows[0];
        const n = expect === "old" ? 50 : 80;
        assert.deepEqual([count, c.all[0][0]], [n, n], `${step}: every row is ${expect}`);
        assert.ok(min.startsWith(`${expect}-`) && max.startsWith(`${expect}-`), `${step}: ${min}..${max}`);
        assert.equal(c.problems, 0, `${step}: the file passes the full check`);
        const current = expect === "old" ? `${enc}.tinyjoin` : `${enc}.tinyjoin-1`;
        assert.deepEqual(c.files, [current, `${enc}.tinyjoin-manifest`, `${enc}.tinyjoin-temp`], `${step}: leftovers removed`);
        if (step === null) console.log(`    (FileSystemFileHandle.prototype.move: ${c.move})`);
      }
      const name = freshName("import-twice");
      const enc = encodeURIComponent(name);
      const r = await inWorker({ mode: "import", name, step: null, twice: true });
      assert.equal(r.done, true, `${r.code}: ${r.message}`);
      const c = await inWorker({ mode: "check", name });
      assert.deepEqual([c.all[0][0], c.problems], [80, 0]);
      assert.deepEqual(c.files, [`${enc}.tinyjoin-2`, `${enc}.tinyjoin-manifest`, `${enc}.tinyjoin-temp`]);
    },
  },
  {
    // Migrations: three tabs open concurrently with the same numbered
    // migrations (one of them not idempotent): each runs exactly once, and
    // every tab's open resolves with the schema current.
    name: "migrations from three tabs at once apply exactly once",
    async run(env) {
      const name = freshName("migrate");
      const tabs = [await env.tab(), await env.tab(), await env.tab()];
      const migrations = ["CREATE TABLE m(x INTEGER)", "INSERT INTO m VALUES (1)", "ALTER TABLE m ADD COLUMN y TEXT"];
      const results = await Promise.all(
        tabs.map((t) =>
          must(t, async ({ name, migrations }) => {
            window.db = await tinyjoin.open(name, { migrations });
            return (await window.db.query("SELECT x, y FROM m")).rows;
          }, { name, migrations }),
        ),
      );
      for (const r of results) assert.deepEqual(r, [[1, null]]);
    },
  },
  {
    // Nesting in the owner Worker ends in typed errors, never in a stack
    // overflow of the browser's own stack (which kills the engine): a
    // recursive trigger 400 levels deep works (the wasm build's bound;
    // this browser's stack held about 850) and deeper fails with SQLite's
    // message, so does a CASCADE down 20,000 rows, and one firing a DELETE
    // trigger per row; chains of CTEs of every length up to 1,000 either
    // run or fail by name; the database stays usable.
    name: "deep triggers, cascades and CTE chains fail with typed errors in the owner Worker",
    async run(env) {
      const name = freshName("deep");
      const tab = await env.tab();
      const r = await must(tab, async (name) => {
        const db = await tinyjoin.open(name);
        const out = {};
        const recurse = (n) => `CREATE TRIGGER up AFTER INSERT ON t WHEN NEW.x < ${n} BEGIN INSERT INTO t VALUES (NEW.x + 1); END`;
        await db.exec(`PRAGMA recursive_triggers = ON; CREATE TABLE t(x); ${recurse(400)}`);
        await db.run("INSERT INTO t VALUES (1)");
        out.levels = (await db.query("SELECT count(*) FROM t")).rows[0][0];
        await db.exec(`DROP TRIGGER up; DELETE FROM t; ${recurse(401)}`);
        const deeper = await window.attempt(() => db.run("INSERT INTO t VALUES (1)"));
        out.deeper = [deeper.code, deeper.message];
        await db.exec(
          "CREATE TABLE n(id INTEGER PRIMARY KEY, p INTEGER REFERENCES n(id) ON DELETE CASCADE); CREATE INDEX n_p ON n(p); INSERT INTO n VALUES (1, NULL); " +
            "WITH RECURSIVE c(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM c WHERE i < 20000) INSERT INTO n SELECT i, i - 1 FROM c",
        );
        const cascade = await window.attempt(() => db.run("DELETE FROM n WHERE id = 1"));
        out.cascade = [cascade.code, cascade.message];
        await db.exec("CREATE TABLE gone(id); CREATE TRIGGER nd AFTER DELETE ON n BEGIN INSERT INTO gone VALUES (OLD.id); END");
        const fired = await window.attempt(() => db.run("DELETE FROM n WHERE id = 1"));
        out.fired = [fired.code, fired.message];
        const chain = (n) => {
          let sql = "WITH c0 AS (SELECT 0 AS x)";
          for (let i = 1; i < n; i++) sql += `, c${i} AS (SELECT x + 1 AS x FROM c${i - 1})`;
          return `${sql} SELECT x FROM c${n - 1}`;
        };
        out.chains = [];
        for (let n = 25; n <= 1000; n += 25) {
          const c = await window.attempt(() => db.query(chain(n)));
          out.chains.push(c.ok ? [n, c.value.rows[0][0]] : [n, c.code, c.message]);
        }
        out.after = (await db.query("SELECT count(*) FROM n")).rows[0][0];
        await db.close();
        return out;
      }, name);
      assert.equal(r.levels, 400);
      assert.deepEqual(r.deeper, ["SQL_ERROR", "too many levels of trigger recursion"]);
      assert.deepEqual(r.cascade, ["SQL_ERROR", "too many levels of trigger recursion"]);
      assert.deepEqual(r.fired, ["SQL_ERROR", "too many levels of trigger recursion"]);
      let longest = 0;
      for (const [n, ...rest] of r.chains) {
        if (rest.length === 1) {
          assert.equal(rest[0], n - 1);
          longest = n;
        } else {
          assert.deepEqual(rest, ["SQL_ERROR", `c${n - 1} nests too many CTEs or views inside each other`], `a chain of ${n}`);
        }
      }
      assert.ok(longest >= 50, `the longest chain that ran: ${longest}`);
      console.log(`    (the longest CTE chain that ran: ${longest})`);
      assert.equal(r.after, 20000);
    },
  },
];
