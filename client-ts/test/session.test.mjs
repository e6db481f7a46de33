// Election, proxying and failover of the client (dist/session.js,
// dist/client.js) against the fakes of fakes.mjs: the same code that runs in
// the browser, with Web Locks, BroadcastChannel and the owner faked.
import { test } from "node:test";
import assert from "node:assert/strict";
// dist/ is compiled on demand first (dist.mjs), so the imports of it are dynamic.
await import("./dist.mjs");
const { connect } = await import("../dist/connect.js");
const { resolveOptions } = await import("../dist/options.js");
const { TinyJoinError } = await import("../dist/errors.js");
const { World, settle } = await import("./fakes.mjs");

const opts = resolveOptions("db", { openTimeoutMs: 5000 });
const openIn = (tab, name = "db") => connect(tab.platform, name, opts, true);
const rows = async (c) => (await c.query("SELECT")).rows.map((r) => r[0]);

test("three tabs: exactly one owner, identical results, writes visible everywhere", async () => {
  const w = new World();
  const clients = [];
  for (let i = 0; i < 3; i++) clients.push(await openIn(w.tab()));
  assert.deepEqual(clients.map((c) => c.role).sort(), ["follower", "follower", "owner"]);
  await clients[1].exec("INSERT a");
  await clients[2].exec("INSERT b");
  await clients[0].exec("INSERT c");
  for (const c of clients) assert.deepEqual(await rows(c), ["a", "b", "c"]);
  for (const c of clients) await c.close();
});

test("the owner's tab dies: a follower takes over, committed data stays, reads go on", async () => {
  const w = new World();
  const tabs = [w.tab(), w.tab(), w.tab()];
  const clients = [];
  for (const t of tabs) clients.push(await openIn(t));
  await clients[1].exec("INSERT before");
  const roles = [];
  clients[1].onRoleChange((r) => roles.push(`1:${r}`));
  clients[2].onRoleChange((r) => roles.push(`2:${r}`));
  w.kill(tabs[0]);
  // A read issued right away waits for the next owner and is answered by it.
  assert.deepEqual(await rows(clients[2]), ["before"]);
  assert.deepEqual(await rows(clients[1]), ["before"]);
  assert.equal(roles.length, 1, `exactly one new owner: ${roles}`);
  assert.equal(w.disks.get("db").epoch, 2, "the epoch grew");
  await clients[2].exec("INSERT after");
  assert.deepEqual(await rows(clients[1]), ["before", "after"]);
});

/** Makes the owner of epoch 1 swallow the first request matching `pred`, optionally running it first. */
function swallow(w, pred, { execute }) {
  let swallowed = null;
  const hit = new Promise((resolve) => {
    w.hold = (msg, owner) => {
      if (owner.epoch !== 1 || swallowed !== null || !pred(msg.request)) return false;
      swallowed = msg.request;
      if (execute) owner.serve(msg.envelope, msg.request); // runs it; the answer is never sent
      resolve();
      return true;
    };
  });
  return hit;
}

test("an autocommit write lost in flight before it ran is re-sent: applied exactly once", async () => {
  const w = new World();
  const [t0, t1] = [w.tab(), w.tab()];
  await openIn(t0);
  const f = await openIn(t1);
  const hit = swallow(w, (r) => r.kind === "exec", { execute: false });
  const p = f.exec("INSERT x");
  await hit;
  w.kill(t0);
  await p;
  assert.deepEqual(await rows(f), ["x"]);
});

test("an autocommit write that committed but whose answer was lost resolves as recovered, once", async () => {
  const w = new World();
  const [t0, t1] = [w.tab(), w.tab()];
  await openIn(t0);
  const f = await openIn(t1);
  const hit = swallow(w, (r) => r.kind === "query" && r.sql === "INSERT y", { execute: true });
  const p = f.query("INSERT y");
  await hit;
  w.kill(t0);
  const r = await p;
  assert.equal(r.recovered, true);
  assert.deepEqual(await rows(f), ["y"]);
});

test("a commit lost in flight: resolves if it committed, rejects OWNER_LOST if not — never both", async () => {
  for (const execute of [true, false]) {
    const w = new World();
    const [t0, t1] = [w.tab(), w.tab()];
    await openIn(t0);
    const f = await openIn(t1);
    const hit = swallow(w, (r) => r.kind === "commit", { execute });
    const p = f.transaction(async (tx) => {
      await tx.exec("INSERT z");
    });
    await hit;
    w.kill(t0);
    const outcome = await p.then(
      () => "resolved",
      (e) => e.code,
    );
    const present = (await rows(f)).includes("z");
    if (outcome === "resolved") assert.ok(present, "resolved, so the data is there");
    else {
      assert.equal(outcome, "OWNER_LOST");
      assert.ok(!present, "rejected, so the data is absent");
    }
    assert.equal(outcome === "resolved", execute);
  }
});

test("the owner dies inside a follower's transaction: OWNER_LOST, nothing committed, the next one works", async () => {
  const w = new World();
  const [t0, t1] = [w.tab(), w.tab()];
  await openIn(t0);
  const f = await openIn(t1);
  let inside;
  const entered = new Promise((r) => (inside = r));
  const p = f.transaction(async (tx) => {
    await tx.exec("INSERT lost");
    inside();
    await new Promise((r) => setTimeout(r, 1)); // let the test kill the owner
    await settle();
    await tx.exec("INSERT lost2");
  });
  await entered;
  w.kill(t0);
  await assert.rejects(p, (e) => e instanceof TinyJoinError && e.code === "OWNER_LOST" && e.retryable);
  assert.deepEqual(await rows(f), []);
  await f.transaction(async (tx) => tx.exec("INSERT ok"));
  assert.deepEqual(await rows(f), ["ok"]);
});

test("a follower dies inside its transaction: the owner rolls it back, others proceed", async () => {
  const w = new World();
  const [t0, t1, t2] = [w.tab(), w.tab(), w.tab()];
  const owner = await openIn(t0);
  const f1 = await openIn(t1);
  const f2 = await openIn(t2);
  let inside;
  const entered = new Promise((r) => (inside = r));
  void f1
    .transaction(async (tx) => {
      await tx.exec("INSERT dead");
      inside();
      await new Promise(() => undefined); // never finishes: the tab dies
    })
    .catch(() => undefined);
  await entered;
  const waiting = f2.transaction(async (tx) => tx.exec("INSERT alive")); // queued behind f1's transaction
  w.kill(t1);
  await waiting;
  assert.deepEqual(await rows(owner), ["alive"]);
});

test("transactions of three clients are serialized: 3 x 20 increments, no lost update", async () => {
  const w = new World();
  const clients = [];
  for (let i = 0; i < 3; i++) clients.push(await openIn(w.tab()));
  await Promise.all(
    clients.map(async (c, i) => {
      for (let k = 0; k < 20; k++) {
        await c.transaction(async (tx) => {
          const n = (await tx.query("SELECT")).rows.length;
          await tx.exec(`INSERT ${i}-${k}-${n}`);
        });
      }
    }),
  );
  const all = await rows(clients[0]);
  assert.equal(all.length, 60);
  // Each transaction saw exactly the rows committed before it: n runs 0..59 with no repeats.
  assert.deepEqual(all.map((r) => Number(r.split("-")[2])), [...Array(60).keys()]);
});

test("errors keep their code and position; garbage on the channel is ignored; closed clients reject", async () => {
  const w = new World();
  const [t0, t1] = [w.tab(), w.tab()];
  await openIn(t0);
  const f = await openIn(t1);
  await assert.rejects(f.exec("FAIL"), (e) => e instanceof TinyJoinError && e.code === "SQL_SYNTAX" && e.position === 0);
  const rogue = w.hub.create("tinyjoin:db", w.tab());
  rogue.postMessage(new Uint8Array([1, 2, 3]));
  rogue.postMessage("not bytes");
  rogue.postMessage(new Uint8Array([0x54, 1, 0x03, 1, 0, 0, 0, 1, 0x41, 9, 0, 0, 0])); // truncated QUERY from client "A"
  await settle();
  await f.exec("INSERT still-serving");
  assert.deepEqual(await rows(f), ["still-serving"]);
  await f.close();
  await assert.rejects(f.query("SELECT"), (e) => e.code === "CLOSED");
});

test("bad arguments are refused before anything is sent", async () => {
  assert.throws(() => resolveOptions("", {}), (e) => e.code === "INVALID_ARGUMENT");
  assert.throws(() => resolveOptions("x", { batchLimitBytes: -1 }), (e) => e.code === "INVALID_ARGUMENT");
  assert.throws(() => resolveOptions("x", { commit: "zero-flush" }), (e) => e.code === "INVALID_ARGUMENT");
  assert.equal(resolveOptions("x", {}).owner.commit, "one-flush");
  assert.equal(resolveOptions("x", { commit: "one-flush" }).owner.commit, "one-flush");
  assert.equal(resolveOptions("x", { commit: "deferred" }).owner.commit, "deferred");
  for (const pollMs of [-1, Number.NaN, Infinity, 51, "1"]) {
    assert.throws(() => resolveOptions("x", { pollMs }), (e) => e.code === "INVALID_ARGUMENT", String(pollMs));
  }
  assert.equal(resolveOptions("x", {}).owner.pollMs, 1);
  assert.equal(resolveOptions("x", { pollMs: 0 }).owner.pollMs, 0);
  assert.equal(resolveOptions("x", { pollMs: 0.25 }).owner.pollMs, 0.25);
  const w = new World();
  const c = await openIn(w.tab());
  await assert.rejects(c.query("SELECT", [{}]), (e) => e.code === "INVALID_ARGUMENT");
});
