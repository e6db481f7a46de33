// The import manifest (opfs.ts, "Crash-safe import"): two CRC-checked slots,
// the highest valid generation wins, a torn slot falls back to the other;
// database file names of one database never match another's.
import { test } from "node:test";
import assert from "node:assert/strict";
await import("./dist.mjs");
const { crc32, manifestGeneration, manifestSlot } = await import("../dist/opfs.js");
const { generationOf, generationFileName, manifestFileName, fileName } = await import("../dist/names.js");

function manifestWith(...generations) {
  const bytes = new Uint8Array(32);
  for (const g of generations) {
    const slot = manifestSlot(g);
    bytes.set(slot.bytes, slot.at);
  }
  return bytes;
}

test("crc32 is the IEEE CRC-32", () => {
  assert.equal(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
});

test("an empty or missing manifest names generation 0", () => {
  assert.equal(manifestGeneration(new Uint8Array(0)), 0);
  assert.equal(manifestGeneration(new Uint8Array(32)), 0);
});

test("the highest valid slot wins, and generations alternate slots", () => {
  assert.equal(manifestSlot(1).at, 16);
  assert.equal(manifestSlot(2).at, 0);
  assert.equal(manifestGeneration(manifestWith(1)), 1);
  assert.equal(manifestGeneration(manifestWith(1, 2)), 2);
  assert.equal(manifestGeneration(manifestWith(1, 2, 3)), 3);
});

test("a torn slot write leaves the previous generation current", () => {
  for (let cut = 0; cut < 16; cut++) {
    const bytes = manifestWith(1);
    const next = manifestSlot(2);
    // Only the first `cut` bytes of the new slot landed (the rest keep the old zeros).
    bytes.set(next.bytes.subarray(0, cut), next.at);
    assert.equal(manifestGeneration(bytes), cut >= 12 ? 2 : 1, `cut at ${cut}`);
  }
  const flipped = manifestWith(1, 2);
  flipped[4] ^= 1;
  assert.equal(manifestGeneration(flipped), 1, "a damaged slot is ignored");
});

test("file names: generations, manifest, and no overlap between databases", () => {
  assert.equal(generationFileName("a b", 0), fileName("a b"));
  assert.equal(generationFileName("a b", 3), "a%20b.tinyjoin-3");
  assert.equal(manifestFileName("a"), "a.tinyjoin-manifest");
  assert.equal(generationOf("a", "a.tinyjoin"), 0);
  assert.equal(generationOf("a", "a.tinyjoin-12"), 12);
  for (const other of ["a.tinyjoin-manifest", "a.tinyjoin-01", "a.tinyjoin-", "a.tinyjoin-1x", "ab.tinyjoin", "a.tinyjoin-1.tinyjoin", "a.tinyjoin.tinyjoin"]) {
    assert.equal(generationOf("a", other), null, other);
  }
  // Database "a.tinyjoin-1"'s own file is not a generation of database "a".
  assert.equal(generationOf("a", fileName("a.tinyjoin-1")), null);
});
