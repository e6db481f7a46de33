// Shared by the benchmark pages and engine Workers: deterministic data, and
// the hash of a result (SHA-256 of its canonical JSON), computed outside any
// timed region.

/** A 64-byte ASCII payload for row `i` of the mixed-transaction table. */
export function payload64(i) {
  return `p${i}:`.padEnd(64, String.fromCharCode(97 + (i % 26)));
}

/** A 1 KiB ASCII body for row `i`. */
export function body1k(i) {
  return `b${i}:`.padEnd(1024, String.fromCharCode(65 + (i % 26)));
}

/** Canonical form of a value across engines: integers as decimal strings, reals to 12 significant digits. */
export function canon(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : Number(v.toPrecision(12)).toString();
  if (typeof v === "boolean") return v ? "1" : "0";
  if (v instanceof Uint8Array) return "x" + Array.from(v, (b) => b.toString(16).padStart(2, "0")).join("");
  return "s" + String(v);
}

const enc = new TextEncoder();

/** SHA-256 (hex) of rows as a list (`ordered`) or as a bag (sorted canonical rows). */
export async function hashRows(rows, ordered = true) {
  let lines = rows.map((r) => JSON.stringify((Array.isArray(r) ? r : Object.values(r)).map(canon)));
  if (!ordered) lines = lines.sort();
  const digest = await crypto.subtle.digest("SHA-256", enc.encode(lines.join("\n")));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The operations of one mixed transaction over a table of `n` rows with ids
 * 1..n (title `t<id>`): operation k cycles insert a new key / update an
 * existing title / delete an existing key. Updates hit odd initial ids,
 * deletes even ones, so no operation touches a row another one removed.
 */
export function mixedOps(n, ops) {
  const out = [];
  let u = 0;
  let d = 0;
  for (let k = 0; k < ops; k++) {
    if (k % 3 === 0) {
      const id = n + 1 + k;
      out.push({ kind: "insert", params: [id, `n${id}`, payload64(id)] });
    } else if (k % 3 === 1) {
      const id = 2 * u++ + 1;
      out.push({ kind: "update", params: [`u${id}-${k}`, id] });
    } else {
      const id = 2 * d++ + 2;
      out.push({ kind: "delete", params: [id] });
    }
  }
  return out;
}

/** The exact rows (id, title, payload) ordered by id after `mixedOps(n, ops)` on the initial table. */
export function mixedModel(n, ops) {
  const rows = new Map();
  for (let i = 1; i <= n; i++) rows.set(i, [i, `t${i}`, payload64(i)]);
  for (const op of mixedOps(n, ops)) {
    if (op.kind === "insert") rows.set(op.params[0], op.params);
    else if (op.kind === "update") rows.get(op.params[1])[1] = op.params[0];
    else rows.delete(op.params[0]);
  }
  return [...rows.keys()].sort((a, b) => a - b).map((id) => rows.get(id));
}

export const MIXED_SQL = {
  create: "CREATE TABLE m(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, payload TEXT NOT NULL)",
  insert: "INSERT INTO m(id, title, payload) VALUES (?, ?, ?)",
  update: "UPDATE m SET title = ? WHERE id = ?",
  delete: "DELETE FROM m WHERE id = ?",
  select: "SELECT id, title, payload FROM m ORDER BY id",
};
