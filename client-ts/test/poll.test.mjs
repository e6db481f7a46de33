// The poller (poll.ts): keeps the event loop turning until its deadline,
// lets messages and timers run between its turns, stops when told, and
// costs nothing when off. No test asserts a duration: only that it turns,
// that others run meanwhile, and that it stops.
import { test } from "node:test";
import assert from "node:assert/strict";
await import("./dist.mjs");
const { Poller } = await import("../dist/poll.js");

/** Resolves once `p` has stopped turning; fails after `boundMs`. */
async function stopped(p, boundMs = 2000) {
  const t0 = performance.now();
  while (p.active) {
    if (performance.now() - t0 > boundMs) assert.fail(`the poller still turns after ${boundMs} ms`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

test("off (0 ms): extend schedules nothing", () => {
  const p = new Poller(0);
  p.extend();
  assert.equal(p.active, false);
  p.close();
});

test("turns until its deadline, then stops by itself", async () => {
  const p = new Poller(5);
  p.extend();
  assert.equal(p.active, true);
  await stopped(p);
  p.close();
});

test("messages and timers run between its turns", async () => {
  const p = new Poller(10_000);
  p.extend();
  const ch = new MessageChannel();
  const got = new Promise((r) => {
    ch.port1.onmessage = (e) => r(e.data);
  });
  ch.port2.postMessage("hello");
  assert.equal(await got, "hello");
  await new Promise((r) => setTimeout(r, 2));
  assert.equal(p.active, true);
  p.stop();
  await stopped(p);
  ch.port1.close();
  p.close();
});

test("stop ends the turning before its deadline; extend starts it again", async () => {
  const p = new Poller(60_000);
  p.extend();
  p.extend();
  assert.equal(p.active, true);
  p.stop();
  await stopped(p);
  p.extend();
  assert.equal(p.active, true);
  p.close();
  assert.equal(p.active, false);
});
