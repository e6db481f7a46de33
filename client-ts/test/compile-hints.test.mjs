// V8's explicit compile hint: a script whose very first line is
// `//# allFunctionsCalledOnLoad` has all its functions compiled as it loads
// (Chromium 136+) instead of on first call. The files on a statement's path
// carry it, measured by scripts/inworker-timing/first-statement.mjs (a fresh
// Worker's first query 0.2-1.3 ms faster); hinting every module cost more at
// load than it saved, so the others must not. scripts/build-wasm makes the
// three entry points single files, each wholly on a statement's path, with
// the hint; of tsc's modules beside them (the unit tests' and the types'),
// those of the statement path keep theirs.
import "./dist.mjs";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

const dist = new URL("../dist/", import.meta.url);
const HINT = "//# allFunctionsCalledOnLoad\n";
const HINTED = ["client.js", "index.js", "owner-runtime.js", "owner-worker.js", "session.js", "worker.js"];

test("the statement path's files, and only they, start with the compile hint", () => {
  const js = readdirSync(dist).filter((f) => f.endsWith(".js"));
  for (const f of HINTED) assert.ok(js.includes(f), `${f} is built`);
  const hinted = js.filter((f) => readFileSync(new URL(f, dist), "utf8").startsWith(HINT)).sort();
  assert.deepEqual(hinted, HINTED);
});
