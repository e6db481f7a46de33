/**
 * TinyJoin's client: `open(name)` gives a `Client` of the database `name`,
 * shared by every tab of the origin.
 *
 * The life of a request from a follower tab to the owner Worker and back:
 *
 *  1. `client.query(sql, params)` (client.ts) converts the parameters to wire
 *     values (`toParams`) and picks a fresh transaction id `<client>.<n>`, so
 *     the request's outcome can be asked about after a failover.
 *  2. `Session.call` (session.ts) gives it a request id, and, if an owner is
 *     connected, encodes it (`encodeRequest`, protocol.ts: envelope with
 *     protocol version, owner epoch, client id, request id) and posts the
 *     bytes on `BroadcastChannel("tinyjoin:<name>")` (names.ts). With no
 *     owner connected it waits in `pending` until the next OPENED.
 *  3. The owner Worker (owner-worker.ts → owner-runtime.ts) receives the
 *     bytes on the channel itself — never through the owner tab's main
 *     thread — and passes them to the wasm `Owner.handle`.
 *  4. In Rust, `protocol::decode_request` validates every length, count and
 *     tag; `owner::Owner` checks the epoch, runs the statement against the
 *     engine (serializing write transactions, queuing a write that must wait
 *     for another client's transaction), records the transaction id in the
 *     same commit, and encodes the result rows in the compact binary form.
 *  5. The reply list goes back to owner-runtime.ts, which broadcasts the
 *     response on the channel (a reply for the owner's own tab goes by
 *     `postMessage` instead).
 *  6. Every follower's Session sees the broadcast; all but the addressee drop
 *     it after reading the envelope (`peekEnvelope`). The addressee checks the
 *     epoch (a stale owner's answer is ignored), decodes the rows once
 *     (`decodeResponse`) and resolves the promise; an error becomes a
 *     `TinyJoinError` with the owner's code and position.
 *  7. If the owner's tab dies first, its client lock is released; the
 *     follower's watch on it fires, and the request rejects inside the
 *     Session with `LostInFlight`. `Client` asks the next owner "did
 *     transaction X commit?" and resolves, re-sends, or rejects with
 *     `OWNER_LOST` (client.ts lists the policy per call).
 */

import { browserPlatform } from "./browser.js";
import { connect } from "./connect.js";
import { resolveOptions } from "./options.js";
import type { OpenOptions } from "./options.js";
import { opfsRoot } from "./opfs.js";
import type { Client, RowObject } from "./client.js";
import type { SqlValue } from "./protocol.js";

export { TinyJoinError } from "./errors.js";
export type { ErrorCode } from "./errors.js";
export type { Client, Transaction, PreparedStatement, QueryResult, BindParams, BatchStatement, RowObject } from "./client.js";
export type { Role } from "./session.js";
export type { SqlValue, CheckSummary, CheckProblem } from "./protocol.js";
export type { OpenOptions } from "./options.js";

/**
 * Opens database `name`. Resolves once this tab is connected to the owner
 * (itself, or another tab's) and the migrations are applied. Rejects with
 * `STORAGE_UNAVAILABLE` when OPFS is missing; never falls back to memory.
 */
export function open(name: string, options: OpenOptions & { readonly rows: "object" }): Promise<Client<RowObject>>;
export function open(name: string, options?: OpenOptions): Promise<Client<SqlValue[]>>;
export async function open(name: string, options?: OpenOptions): Promise<Client<SqlValue[]> | Client<RowObject>> {
  const opts = resolveOptions(name, options);
  const platform = browserPlatform();
  const shared = opts.owner.storage === "opfs";
  if (shared) await opfsRoot();
  return opts.rows === "object" ? connect<RowObject>(platform, name, opts, shared) : connect<SqlValue[]>(platform, name, opts, shared);
}
