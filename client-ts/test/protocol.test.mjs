// The TypeScript mirror of the wire protocol against worker/PROTOCOL.md and the
// golden vectors the Rust mirror also checks (worker/tests/protocol_spec.rs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
// dist/ is compiled on demand first (dist.mjs), so the imports of it are dynamic.
await import("./dist.mjs");
const P = await import("../dist/protocol.js");
const { isErrorCode, CLIENT_CODES } = await import("../dist/errors.js");

const spec = readFileSync(new URL("../../worker/PROTOCOL.md", import.meta.url), "utf8");
const vectors = new Map(
  readFileSync(new URL("../../worker/protocol-vectors.txt", import.meta.url), "utf8")
    .trim()
    .split("\n")
    .map((l) => l.split(" ")),
);

function table(heading) {
  const lines = spec.slice(spec.indexOf(heading)).split("\n");
  const start = lines.findIndex((l) => l.startsWith("|"));
  const rows = [];
  for (let i = start + 2; i < lines.length && lines[i].startsWith("|"); i++) {
    rows.push(lines[i].replace(/^\||\|$/g, "").split("|").map((c) => c.trim()));
  }
  return rows;
}

const pascal = (snake) => snake.toLowerCase().replace(/(^|_)([a-z])/g, (_, __, c) => c.toUpperCase());
const hex = (bytes) => Buffer.from(bytes).toString("hex");

test("kinds table matches the TypeScript constants", () => {
  const doc = table("## Kinds").map(([k, name]) => [pascal(name), Number(k)]);
  const code = [...Object.entries(P.RequestKind), ...Object.entries(P.ResponseKind)];
  assert.deepEqual(doc, code);
});

test("value tags table matches the TypeScript constants", () => {
  const doc = table("## Values").map(([t, name]) => [pascal(name), Number(t)]);
  assert.deepEqual(doc, Object.entries(P.ValueTag));
});

test("every error code of the spec is a known TinyJoinError code", () => {
  for (const [code] of table("## Error codes")) assert.ok(isErrorCode(code), code);
  for (const code of CLIENT_CODES) assert.ok(spec.includes(`\`${code}\``), `${code} is listed in PROTOCOL.md`);
});

test("envelope constants match the spec", () => {
  const rows = table("## Envelope");
  assert.match(rows[0][3], new RegExp(`0x${P.MAGIC.toString(16).toUpperCase()}`));
  assert.match(rows[1][3], new RegExp(`now \`${P.PROTOCOL_VERSION}\``));
});

const env = { epoch: 3, client: "c-1", request: 258 };
const rs = {
  columns: ["id", "name"],
  rows: [
    [1, "é"],
    [-0.5, new Uint8Array([0xde, 0xad])],
  ],
  changes: 1,
  lastInsertRowid: 9007199254740993n,
};

const requestVectors = {
  open: { kind: "open" },
  exec: { kind: "exec", txn: "t-1", sql: "CREATE TABLE t(a)" },
  query: {
    kind: "query",
    txn: null,
    sql: "SELECT ?, ?, ?, ?, ?",
    params: { tag: "positional", values: [null, -(1n << 60n), 2.5, "x", new Uint8Array([1, 2])] },
  },
  query_named: { kind: "query", txn: "t", sql: "SELECT :a", params: { tag: "named", values: [[":a", 7]] } },
  run: { kind: "run", txn: "t", stmt: 5, params: { tag: "none" } },
  batch: { kind: "batch", txn: "b", items: [{ sql: "INSERT INTO t VALUES (?)", params: { tag: "positional", values: [1] } }] },
  commit: { kind: "commit", txn: "t-1" },
  txn_status: { kind: "txnStatus", txn: "t-1" },
  import: { kind: "import", bytes: new Uint8Array([1, 2, 3]) },
  check: { kind: "check" },
  sync: { kind: "sync" },
};

const responseVectors = {
  ready: { kind: "ready", owner: "o" },
  rows: { kind: "rows", result: rs },
  prepared: { kind: "prepared", stmt: 2, paramCount: 1, columns: ["a"] },
  batch_done: { kind: "batchDone", results: [rs, { columns: [], rows: [], changes: 0, lastInsertRowid: 0 }] },
  txn_state: { kind: "txnState", committed: true },
  failed: { kind: "failed", error: { code: "SQL_SYNTAX", message: 'near "FORM"', position: 9 } },
  checked: { kind: "checked", summary: { problems: [{ page: 7, detail: "checksum mismatch" }], pages: 10, trees: 3, entries: 42, freePages: 2 } },
};

test("requests encode byte for byte like the Rust mirror", () => {
  for (const [name, req] of Object.entries(requestVectors)) {
    assert.equal(hex(P.encodeRequest(env, req)), vectors.get(name), name);
    const back = P.decodeRequest(P.encodeRequest(env, req));
    assert.deepEqual(back.envelope, env, name);
    assert.equal(back.request.kind, req.kind, name);
  }
});

test("responses from the Rust mirror decode to the expected values, and re-encode identically", () => {
  for (const [name, resp] of Object.entries(responseVectors)) {
    const bytes = Buffer.from(vectors.get(name), "hex");
    const { envelope, response } = P.decodeResponse(new Uint8Array(bytes));
    assert.deepEqual(envelope, env, name);
    assert.deepEqual(response, resp, name);
    assert.equal(hex(P.encodeResponse(env, resp)), vectors.get(name), name);
  }
});

test("every truncation of a valid message is a typed ProtocolError", () => {
  for (const name of vectors.keys()) {
    const bytes = new Uint8Array(Buffer.from(vectors.get(name), "hex"));
    const decode = name in requestVectors ? P.decodeRequest : P.decodeResponse;
    for (let cut = 0; cut < bytes.length; cut++) {
      assert.throws(() => decode(bytes.subarray(0, cut)), (e) => e instanceof P.ProtocolError && e.code === "MALFORMED_MESSAGE", `${name} cut at ${cut}`);
    }
  }
});

test("malformed messages are refused with typed errors", () => {
  const good = P.encodeRequest(env, { kind: "open" });
  const other = good.slice();
  other[1] = 2;
  assert.throws(() => P.decodeRequest(other), (e) => e.code === "PROTOCOL_VERSION" && e.envelope.client === "c-1");
  const badKind = good.slice();
  badKind[2] = 0x3f;
  assert.throws(() => P.decodeRequest(badKind), /unknown request kind/);
  const trailing = new Uint8Array([...good, 0]);
  assert.throws(() => P.decodeRequest(trailing), /unexpected bytes/);
  // A huge row count in a tiny message is refused before any allocation.
  const rows = P.encodeResponse(env, { kind: "rows", result: { columns: ["a"], rows: [], changes: 0, lastInsertRowid: 0 } });
  const view = new DataView(rows.buffer);
  const countAt = rows.length - 4 - 16;
  view.setUint32(countAt, 0xffffffff, true);
  assert.throws(() => P.decodeResponse(rows), /larger than the message/);
  // Invalid UTF-8 in text.
  const text = P.encodeRequest(env, { kind: "prepare", sql: "ab" });
  text[text.length - 1] = 0xff;
  assert.throws(() => P.decodeRequest(text), /UTF-8/);
});

test("reals decode bit for bit", () => {
  const reals = [0.5, -0.5, -0, 1e308, -1e-308, 5e-324, Math.PI, Infinity, -Infinity, 2 ** 53 + 0.5 * 4];
  const rows = reals.map((v) => [v]);
  const bytes = P.encodeResponse(env, { kind: "rows", result: { columns: ["r"], rows, changes: 0, lastInsertRowid: 0 } });
  const back = P.decodeResponse(bytes).response.result.rows;
  for (let i = 0; i < reals.length; i++) assert.ok(Object.is(back[i][0], reals[i]), `${reals[i]} came back as ${back[i][0]}`);
});

test("integers decode as numbers when safe, as bigint beyond 2^53 or by option", () => {
  const bytes = P.encodeResponse(env, { kind: "rows", result: { columns: ["a"], rows: [[5], [2n ** 60n]], changes: 0, lastInsertRowid: 0 } });
  assert.deepEqual(P.decodeResponse(bytes).response.result.rows, [[5], [2n ** 60n]]);
  assert.deepEqual(P.decodeResponse(bytes, "bigint").response.result.rows, [[5n], [2n ** 60n]]);
});

test("integers and short strings take the fast paths with the exact wire form and values", () => {
  const ints = [0, 1, -1, 255, -256, 2 ** 31, -(2 ** 31) - 1, 2 ** 32, -(2 ** 32), 2 ** 32 + 7, 2 ** 53 - 1, -(2 ** 53 - 1), 123456789012345];
  const strs = ["", "a", "plain ascii", "x".repeat(64), "y".repeat(65), "é", "aé", "🙂", "tab\tand\nnewline", "\u007f"];
  const enc = new TextEncoder();
  const bytes = P.encodeParams({ tag: "positional", values: [...ints, ...strs] }).slice();
  // The reference: BigInt for integers, TextEncoder for text.
  const expected = [];
  const push32 = (n) => expected.push(n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff);
  const ref = P.encodeParams({ tag: "positional", values: [] });
  expected.push(...ref.subarray(0, ref.length - 4));
  push32(ints.length + strs.length);
  for (const v of ints) {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigInt64(0, BigInt(v), true);
    expected.push(P.ValueTag.Integer, ...b);
  }
  for (const s of strs) {
    const b = enc.encode(s);
    expected.push(P.ValueTag.Text);
    push32(b.length);
    expected.push(...b);
  }
  assert.deepEqual([...bytes], expected);
  // Decoding: every integer back as the same number, past 2^53 as bigint,
  // every string back as itself.
  const big = [2n ** 53n, -(2n ** 53n), 2n ** 63n - 1n, -(2n ** 63n)];
  const rows = [...ints.map((v) => [v]), ...big.map((v) => [v]), ...strs.map((s) => [s])];
  const resp = P.encodeResponse(env, { kind: "rows", result: { columns: ["a"], rows, changes: 2 ** 40 + 3, lastInsertRowid: -5 } });
  const back = P.decodeResponse(resp).response.result;
  assert.deepEqual(back.rows, rows);
  assert.equal(back.changes, 2 ** 40 + 3);
  assert.equal(back.lastInsertRowid, -5);
});

test("the direct calls' parameter encoder copies exactly the last list, short or long", () => {
  const enc = new P.ParamsEncoder();
  const lists = [
    { tag: "none" },
    { tag: "positional", values: [1] },
    { tag: "positional", values: ["other", null, 2.5] },
    { tag: "positional", values: ["z".repeat(300), new Uint8Array([1, 2, 3])] },
    { tag: "named", values: [[":a", 7]] },
    { tag: "positional", values: [1] },
  ];
  for (const p of lists) {
    const want = P.encodeParams(p);
    const len = enc.encode(p);
    assert.equal(len, want.length);
    const m = new Uint8Array(len + 10).fill(0xee);
    enc.copyTo(m, 5);
    assert.deepEqual([...m.subarray(5, 5 + len)], [...want]);
    assert.ok(m.subarray(0, 5).every((b) => b === 0xee) && m.subarray(5 + len).every((b) => b === 0xee), "bytes outside the list stay untouched");
  }
});

test("requests encode ids in place: ASCII and non-ASCII ids round-trip, 64 bytes is the limit, each result is its own copy", () => {
  const run = (txn, client = "c1") =>
    P.encodeRequest({ epoch: 3, client, request: 9 }, { kind: "run", txn, stmt: 4, params: { tag: "positional", values: [1, "x"] } });
  for (const txn of ["c1.1", "tx-é", "日本語", "a".repeat(64), "ü".repeat(32)]) {
    const { envelope, request } = P.decodeRequest(run(txn, txn));
    assert.equal(envelope.client, txn);
    assert.equal(request.txn, txn);
  }
  assert.throws(() => run("a".repeat(65)), RangeError);
  assert.throws(() => run("ü".repeat(33)), RangeError);
  // The encoder reuses one buffer: an earlier result must not change, even
  // after a request large enough to replace the buffer.
  const first = run("t.1");
  const copy = Uint8Array.from(first);
  P.encodeRequest({ epoch: 3, client: "c1", request: 10 }, { kind: "exec", txn: null, sql: "x".repeat(200_000) });
  run("t.2");
  assert.deepEqual(first, copy);
  assert.equal(P.decodeRequest(run("t.3")).request.txn, "t.3");
});
