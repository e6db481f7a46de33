// What a fresh Worker's first statements cost, with and without V8's
// explicit compile hints: a diagnostic tool, not a test (the machine is
// shared and noisy).
//
// V8 compiles a JavaScript function on its first call (it only pre-parses it
// when the script loads) and a wasm function on its first call too, so the
// first statements of a fresh Worker pay for compiling the client's and the
// owner's code on their path. A script whose first line is the magic comment
// `//# allFunctionsCalledOnLoad` (Chromium 136 and later) has all its
// functions compiled as it loads instead; the package's files on a
// statement's path carry it (session, client, worker, owner-runtime). This
// tool times, in one headless Chromium, rounds of fresh Workers alternating
// between two copies of client-ts/dist: `none` (the comment removed from
// every file) and `hinted` (the comment on the --hint files only, by default
// the package's). Each Worker imports the package, opens a database on OPFS
// holding a 200,000-row join table, and runs a point join from its SQL text
// (J5's shape) twice, then prepares three statements and runs a
// 25-statement transaction of inserts, updates and deletes on a table with a
// UNIQUE column. Printed per variant and phase: median (min - max) and p90
// over the rounds. Needs scripts/build-wasm.
//
// Usage: node scripts/inworker-timing/first-statement.mjs [--rounds=30]
//          [--hint=session.js,client.js,worker.js,owner-runtime.js] [--js-flags=...]
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, inFreshWorker, launchBrowser, parseArgs, serve, stats } from "../compare/lib/harness.mjs";

const { flags } = parseArgs(process.argv.slice(2), ["rounds", "hint", "js-flags"]);
const ROUNDS = Number(flags.rounds ?? 30);
const HINT = "//# allFunctionsCalledOnLoad\n";
const dist = join(ROOT, "client-ts/dist");
const files = (await readdir(dist, { recursive: true })).filter((f) => f.endsWith(".js"));
// The files to hint: --hint's, or those that carry the comment in the build.
const HINTED = flags.hint ? String(flags.hint).split(",") : [];
if (!flags.hint) {
  for (const f of files) if ((await readFile(join(dist, f), "utf8")).startsWith(HINT)) HINTED.push(f);
}

/** A copy of the package whose `hinted` files, and only those, start with the comment. */
async function copyWith(hinted) {
  const dir = await mkdtemp(join(tmpdir(), "tinyjoin-hints-"));
  await cp(dist, dir, { recursive: true });
  for (const f of files) {
    const text = await readFile(join(dir, f), "utf8");
    const bare = text.startsWith(HINT) ? text.slice(HINT.length) : text;
    await writeFile(join(dir, f), hinted.includes(f) ? HINT + bare : bare);
  }
  return dir;
}
const none = await copyWith([]);
const hinted = await copyWith(HINTED);

const server = await serve({
  "/h/": join(ROOT, "scripts/inworker-timing"),
  "/none/": none,
  "/hinted/": hinted,
});
const browser = await launchBrowser("first-statement", flags["js-flags"] ?? null);
try {
  const page = await browser.context.newPage();
  await page.goto(`${server.origin}/h/page.html`);
  const inWorker = (msg) => inFreshWorker(page, "/h/first-statement-worker.js", msg);
  await inWorker({ variant: "none", build: true });
  const variants = ["none", "hinted"];
  const results = { none: [], hinted: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const v of r % 2 === 0 ? variants : [...variants].reverse()) results[v].push(await inWorker({ variant: v }));
  }
  console.log(`${ROUNDS} fresh Workers per variant; ms, median (min - max) p90; hinted files: ${HINTED.join(", ")}`);
  for (const phase of Object.keys(results.none[0])) {
    const cells = variants.map((v) => {
      const st = stats(results[v].map((x) => x[phase]));
      return `${v} ${st.median.toFixed(2)} (${st.min.toFixed(2)} - ${st.max.toFixed(2)}) ${st.p90.toFixed(2)}`;
    });
    console.log(`  ${phase.padEnd(17)} ${cells.join("   ")}`);
  }
} finally {
  await browser.close();
  await server.close();
  await rm(none, { recursive: true, force: true });
  await rm(hinted, { recursive: true, force: true });
}
