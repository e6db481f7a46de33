// Does this Chromium act on a wasm module's compilation-priority hints
// (the `metadata.code.compilation_priority` custom section of the
// WebAssembly compilation-hints proposal)? A diagnostic tool, not a test.
//
// If it did, TinyJoin could mark its statement paths for eager optimization
// and its first statements would not run in V8's baseline tier
// (artifacts/SLOWER.md, "Code that has not warmed up"). The probe: a
// module whose one exported function runs a loop of calls, loads and
// stores, called once (wasm has no
// on-stack replacement, so the whole call runs in the tier the function had
// when it started), 1.5 s after instantiation, in three builds: no hint, a
// hint in the proposal's layout (function index, a list of one hint at byte
// offset 0: compilation priority 0, optimization priority 0) and the same
// hint without the list count (the layout of V8's own early test). Each is
// timed in Chromium with its default flags, with
// --experimental-wasm-compilation-hints, and with --no-liftoff (everything
// optimized: the time an honoured hint would give).
//
// Usage: node scripts/inworker-timing/compile-hints.mjs [--iterations=200000000]
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchBrowser, parseArgs, serve } from "../compare/lib/harness.mjs";

const { flags } = parseArgs(process.argv.slice(2), ["iterations"]);
const ITERATIONS = Number(flags.iterations ?? 200_000_000);

const leb = (n) => {
  const out = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};
const section = (id, body) => [id, ...leb(body.length), ...body];
const name = (s) => [...leb(s.length), ...Buffer.from(s)];

/** The probe module; `hint` is "none", "proposal" or "flat". */
function probe(hint) {
  // f(n): acc = g(acc) + mem[i & 4092], stored back, for i in 0..n; g(x) = x * 31 ^ 7.
  const f = [1, 2, 0x7f, 0x03, 0x40,
    0x20, 2, 0x41, 0xfc, 0x1f, 0x71, 0x20, 1, 0x10, 1,
    0x20, 2, 0x41, 0xfc, 0x1f, 0x71, 0x28, 2, 0, 0x6a, 0x22, 1, 0x36, 2, 0,
    0x20, 2, 0x41, 1, 0x6a, 0x22, 2, 0x20, 0, 0x48, 0x0d, 0, 0x0b, 0x20, 1, 0x0b];
  const g = [0, 0x20, 0, 0x41, 0x1f, 0x6c, 0x41, 7, 0x73, 0x0b];
  const hintPayload = { proposal: [1, 0, 1, 0, 2, 0, 0], flat: [1, 0, 0, 2, 0, 0] }[hint];
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, [1, 0x60, 1, 0x7f, 1, 0x7f]),
    ...section(3, [2, 0, 0]),
    ...section(5, [1, 0, 1]),
    ...section(7, [1, ...name("f"), 0, 0]),
    ...(hintPayload ? section(0, [...name("metadata.code.compilation_priority"), ...hintPayload]) : []),
    ...section(10, [2, ...leb(f.length), ...f, ...leb(g.length), ...g]),
  ]);
}

const PAGE = `<!doctype html><script>
window.probe = async (hint, n) => {
  const bytes = await (await fetch(hint + ".wasm")).arrayBuffer();
  const { instance } = await WebAssembly.instantiate(bytes);
  await new Promise((r) => setTimeout(r, 1500));
  const t0 = performance.now();
  instance.exports.f(n);
  return performance.now() - t0;
};
</script>`;

const dir = await mkdtemp(join(tmpdir(), "tinyjoin-hints-"));
const hints = ["none", "proposal", "flat"];
for (const h of hints) await writeFile(join(dir, `${h}.wasm`), probe(h));
await writeFile(join(dir, "index.html"), PAGE);
const server = await serve({ "/": dir });
try {
  for (const flags of [null, "--experimental-wasm-compilation-hints", "--no-liftoff"]) {
    const browser = await launchBrowser("hints", flags);
    try {
      const page = await browser.context.newPage();
      await page.goto(`${server.origin}/index.html`);
      const times = [];
      for (const h of hints) times.push(`${h} ${(await page.evaluate(([hint, n]) => window.probe(hint, n), [h, ITERATIONS])).toFixed(0)} ms`);
      console.log(`${(flags ?? "default flags").padEnd(40)} ${times.join(", ")}`);
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
  await rm(dir, { recursive: true, force: true });
}
