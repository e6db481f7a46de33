// What a statement from the page costs through TinyJoin's page client
// (`open()`: election, an owner Worker) against a bare message to a Worker
// that only answers, in the same page: a diagnostic tool, not a test.
//
// The comparison's page rows (README, "Measured performance") time the
// mixed transactions from the page; there TinyJoin's path cost about 45 µs
// per statement more than SQLite's harness's bare message, beyond each
// engine's work (derived from medians). This measures it directly: per round, in
// one page, N statements `SELECT 1` (engine work next to nothing) and N of
// the mixed transaction (`runPrepared` in a transaction, as the comparison
// does) through the client, N bare round trips to an echo Worker with the
// same message shape as the comparison's SQLite harness, and N of 100-byte
// Uint8Arrays transferred both ways (as the client and its owner send their
// encoded requests and replies); and N `SELECT 1` requests, encoded as the
// client does, handed to the owner's wasm (`Owner.handle`, an in-memory
// database) in a bare module Worker that posts the reply back: the owner's
// engine work and the messages without the client, the session and the
// owner runtime around them (`ownerWasm`; `ownerWasmInside`, the wasm
// call's own time measured inside that Worker). Besides the bytes
// transferred, the echo Worker's round trip with other payloads of about
// 100 bytes: the bytes copied rather than transferred, a string, an
// ArrayBuffer, bytes in an object; and, last, the first bare round trips
// again (`echoAgain`): the first ones follow the transaction and have run
// 30-40 µs faster than the same messages later in the round. Prints µs per
// call (median and range over the rounds).
//
// `--poll-ms=X` opens the client with `pollMs: X` (OpenOptions; the
// package's default without it).
//
// Usage: node scripts/inworker-timing/page-path.mjs [--n=1000] [--rounds=7] [--poll-ms=X]
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMPARE_DIR, ROOT, launchBrowser, openPage, parseArgs, serve, stats } from "../compare/lib/harness.mjs";

const { flags } = parseArgs(process.argv.slice(2), ["n", "rounds", "poll-ms"]);
const N = Number(flags.n ?? 1000);
const ROUNDS = Number(flags.rounds ?? 7);

// Answers an object with an object; a Uint8Array with a Uint8Array of the
// same size, transferred both ways as TinyJoin's client and owner do.
const ECHO = `let transfer = true;
onmessage = (e) => {
  if (e.data === "copy" || e.data === "transfer") {
    transfer = e.data === "transfer";
    postMessage(e.data);
  } else if (typeof e.data === "string") {
    postMessage("x".repeat(e.data.length));
  } else if (e.data instanceof ArrayBuffer) {
    const b = new ArrayBuffer(e.data.byteLength);
    postMessage(b, [b]);
  } else if (e.data && e.data.wrapped) {
    postMessage({ id: e.data.id, wrapped: new Uint8Array(e.data.wrapped.length) });
  } else if (e.data instanceof Uint8Array) {
    const b = new Uint8Array(e.data.length);
    if (transfer) postMessage(b, [b.buffer]);
    else postMessage(b);
  } else postMessage({ id: e.data.id, result: 1 });
};
`;
// The owner's wasm alone: request bytes in, the reply to this client out.
const OWNER_WASM = `import init, { Owner } from "/pkg/dist/wasm/tinyjoin_worker.js";
await init();
const owner = Owner.openMemory("c0ffee00c0ffee00", 16 << 20, 2048);
owner.recordCommits(false);
let inside = 0;
onmessage = (e) => {
  if (e.data === "inside") {
    postMessage(inside);
    inside = 0;
    return;
  }
  const t = performance.now();
  const list = owner.handle(e.data);
  inside += performance.now() - t;
  // The reply list's first entry (route, u32 length, bytes): the answer.
  const len = (list[1] | (list[2] << 8) | (list[3] << 16) | (list[4] << 24)) >>> 0;
  postMessage(list.slice(5, 5 + len));
};
postMessage("ready");
`;
const PAGE = `<!doctype html><script type="module">
import { decodeResponse, encodeRequest } from "/pkg/dist/protocol.js";
import { mixedOps, payload64 } from "/c/common.js";
import { mixedSql } from "/c/workloads.js";
const tj = await import("/pkg/dist/index.js");
const c = await tj.open("page-path-" + Date.now(), OPEN_OPTIONS);
const echo = new Worker("/h/echo.js");
const ownerWasm = await new Promise((resolve) => {
  const w = new Worker("/h/owner-wasm.js", { type: "module" });
  w.onmessage = () => resolve(w);
});
const ownerTrip = (msg) => new Promise((resolve) => {
  ownerWasm.onmessage = (e) => resolve(e.data);
  ownerWasm.postMessage(msg);
});
const ownerEnv = (request) => ({ epoch: 1, client: "c0ffee00c0ffee00", request });
let ownerRequest = 1;
await ownerTrip(encodeRequest(ownerEnv(ownerRequest++), { kind: "open" }));
const select1 = () => encodeRequest(ownerEnv(ownerRequest++), { kind: "query", txn: null, sql: "SELECT 1", params: { tag: "none" } });
// The requests below must be answered with rows, not refused.
const probe = decodeResponse(await ownerTrip(select1())).response;
if (probe.kind !== "rows") throw new Error("the owner's wasm answered " + JSON.stringify(probe));
let nextId = 1;
const rpc = (msg) => new Promise((resolve) => {
  const id = nextId++;
  echo.onmessage = (e) => { if (e.data.id === id) resolve(e.data.result); };
  echo.postMessage({ id, ...msg });
});
let round = 0;
window.round = async (n) => {
  round += 1;
  const out = {};
  let t0 = performance.now();
  for (let i = 0; i < n; i++) await c.query("SELECT 1");
  out.select1 = ((performance.now() - t0) * 1000) / n;
  const q = mixedSql("pp" + round);
  await c.exec(q.create);
  const stmt = { insert: await c.prepare(q.insert), update: await c.prepare(q.update), delete: await c.prepare(q.delete) };
  await c.transaction(async (tx) => {
    for (let i = 1; i <= n; i++) await tx.runPrepared(stmt.insert, [i, "t" + i, payload64(i)]);
  });
  const ops = mixedOps(n, n);
  t0 = performance.now();
  await c.transaction(async (tx) => {
    for (const op of ops) await tx.runPrepared(stmt[op.kind], op.params);
  });
  out.mixed = ((performance.now() - t0) * 1000) / n;
  // The echo Worker's round trips: the statements' bare object messages,
  // and n messages make(i), transferring what transfer(m) lists.
  const echoOps = async (name) => {
    const t = performance.now();
    for (const op of ops) await rpc({ op: "runInTx", args: { stmt: 1, params: op.params } });
    out[name] = ((performance.now() - t) * 1000) / n;
  };
  const trip = async (name, make, transfer = () => []) => {
    const t = performance.now();
    for (let i = 0; i < n; i++) {
      await new Promise((resolve) => {
        echo.onmessage = () => resolve();
        const m = make(i);
        echo.postMessage(m, transfer(m));
      });
    }
    out[name] = ((performance.now() - t) * 1000) / n;
  };
  // Whether the echo Worker transfers the bytes it answers with.
  const echoMode = (mode) => new Promise((resolve) => { echo.onmessage = () => resolve(); echo.postMessage(mode); });
  await echoOps("echo");
  // The same round trips as bytes (a mixed statement's request is about 100).
  await trip("echoBytes", () => new Uint8Array(100), (b) => [b.buffer]);
  await echoMode("copy");
  await trip("echoBytesCopied", () => new Uint8Array(100));
  await trip("echoString", (i) => "s".repeat(100) + i);
  await trip("echoBuffer", () => new ArrayBuffer(100), (b) => [b]);
  await trip("echoWrapped", (i) => ({ id: i, wrapped: new Uint8Array(100) }));
  await echoOps("echoAgain");
  await echoMode("transfer");
  await ownerTrip("inside");
  t0 = performance.now();
  for (let i = 0; i < n; i++) {
    await ownerTrip(select1());
  }
  out.ownerWasm = ((performance.now() - t0) * 1000) / n;
  out.ownerWasmInside = ((await ownerTrip("inside")) * 1000) / n;
  return out;
};
window.benchReady = true;
</script>`;

const dir = await mkdtemp(join(tmpdir(), "tinyjoin-page-path-"));
const openOptions = flags["poll-ms"] === undefined ? {} : { pollMs: Number(flags["poll-ms"]) };
await writeFile(join(dir, "index.html"), PAGE.replace("OPEN_OPTIONS", JSON.stringify(openOptions)));
await writeFile(join(dir, "echo.js"), ECHO);
await writeFile(join(dir, "owner-wasm.js"), OWNER_WASM);
const server = await serve({ "/pkg/": join(ROOT, "client-ts"), "/c/": join(COMPARE_DIR, "web"), "/h/": dir });
const browser = await launchBrowser("page-path");
try {
  const page = await openPage(browser.context, `${server.origin}/h/index.html`, console.error);
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push(await page.evaluate((n) => window.round(n), N));
  for (const key of ["select1", "mixed", "echo", "echoBytes", "echoBytesCopied", "echoString", "echoBuffer", "echoWrapped", "echoAgain", "ownerWasm", "ownerWasmInside"]) {
    const s = stats(rounds.map((x) => x[key]));
    console.log(`${key.padEnd(10)} ${s.median.toFixed(1)} µs per call (${s.min.toFixed(1)}-${s.max.toFixed(1)}, ${ROUNDS} rounds of ${N})`);
  }
} finally {
  await browser.close();
  await server.close();
  await rm(dir, { recursive: true, force: true });
}
