// The messages between a tab and its owner Worker (owner-messages.ts): wire
// bytes travel as bare arrays, control messages as validated objects.
import { test } from "node:test";
import assert from "node:assert/strict";
await import("./dist.mjs");
const M = await import("../dist/owner-messages.js");

test("a bare Uint8Array is a request one way and a response the other", () => {
  const bytes = new Uint8Array([1, 2, 3]);
  assert.deepEqual(M.parseToOwnerWorker(bytes), { type: "request", bytes });
  assert.deepEqual(M.parseFromOwnerWorker(bytes), { type: "response", bytes });
});

test("wrapped or malformed messages are dropped, control messages are checked", () => {
  const bytes = new Uint8Array([1]);
  for (const bad of [null, 7, "x", [bytes], { type: "request", bytes }, { type: "response", bytes }, new ArrayBuffer(4), { type: "start", name: "n" }]) {
    assert.equal(M.parseToOwnerWorker(bad), null, String(bad));
  }
  for (const bad of [null, { type: "response", bytes }, { type: "started" }, { type: "failed", code: 1, message: "m" }, new Uint16Array(2)]) {
    assert.equal(M.parseFromOwnerWorker(bad), null, String(bad));
  }
  assert.deepEqual(M.parseToOwnerWorker({ type: "stop" }), { type: "stop" });
  const options = { storage: "opfs", batchLimitBytes: 1 << 20, validation: "full", cachePages: 64, commit: "one-flush", pollMs: 1 };
  const start = { type: "start", name: "n", clientId: "c", options };
  assert.deepEqual(M.parseToOwnerWorker(start), start);
  for (const pollMs of [undefined, -1, Number.NaN, 51, "1"]) {
    assert.equal(M.parseToOwnerWorker({ ...start, options: { ...options, pollMs } }), null, String(pollMs));
  }
  assert.deepEqual(M.parseFromOwnerWorker({ type: "started", epoch: 2 }), { type: "started", epoch: 2 });
});

test("only large messages are transferred", () => {
  assert.deepEqual(M.transferList(new Uint8Array(100)), []);
  const big = new Uint8Array(M.TRANSFER_MIN_BYTES);
  assert.deepEqual(M.transferList(big), [big.buffer]);
});
