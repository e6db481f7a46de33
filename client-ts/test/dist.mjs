// Imported first by every test file: makes sure client-ts/dist holds the
// compiled TypeScript of the current sources (runs tsc when any source is
// newer than its output), so `node --test test/` works on a fresh clone.
// Also usable as a test file on its own (it then only compiles).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";

const pkg = new URL("../", import.meta.url);
const src = new URL("src/", pkg);
const dist = new URL("dist/", pkg);

function stale() {
  for (const f of readdirSync(src)) {
    if (!f.endsWith(".ts")) continue;
    const out = new URL(f.replace(/\.ts$/, ".js"), dist);
    if (!existsSync(out) || statSync(out).mtimeMs < statSync(new URL(f, src)).mtimeMs) return true;
  }
  return false;
}

if (stale()) {
  const tsc = new URL("../node_modules/.bin/tsc", pkg).pathname;
  execFileSync(tsc, ["-p", pkg.pathname], { stdio: "inherit" });
}

/** Whether the wasm was built (scripts/build-wasm). */
export const wasmBuilt = existsSync(new URL("wasm/tinyjoin_worker_bg.wasm", dist));
