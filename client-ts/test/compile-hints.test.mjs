// V8's explicit compile hint: a script whose very first line is
// `//# allFunctionsCalledOnLoad` has all its functions compiled as it loads
// (Chromium 136+) instead of on first call. scripts/build-wasm makes the
// three entry points single files, each wholly on a statement's path, and
// gives each the hint (a fresh Worker's first query 0.2-1.3 ms faster,
// scripts/inworker-timing/first-statement.mjs). tsc's modules beside them,
// which no entry loads (the types' and the unit tests'), carry none:
// hinting every module cost more at load than it saved.
import "./dist.mjs";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

const dist = new URL("../dist/", import.meta.url);
const HINT = "//# allFunctionsCalledOnLoad\n";
const HINTED = ["index.js", "owner-worker.js", "worker.js"];

test("the entry points, and only they, start with the compile hint", () => {
  const js = readdirSync(dist).filter((f) => f.endsWith(".js"));
  for (const f of HINTED) assert.ok(js.includes(f), `${f} is built`);
  const hinted = js.filter((f) => readFileSync(new URL(f, dist), "utf8").startsWith(HINT)).sort();
  assert.deepEqual(hinted, HINTED);
});
