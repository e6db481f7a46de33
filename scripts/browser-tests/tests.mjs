// The browser tests (run.mjs runs them in order, each with fresh tabs).
// Each test's first comment says what it covers. Helpers at the top.
import assert from "node:assert/strict";

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
];
