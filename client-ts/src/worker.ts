/**
 * `tinyjoin/worker`: open a database directly inside a dedicated Worker the
 * application already runs — no election, no channel, exclusive access to the
 * file — with the same statements, values and errors as `open()`.
 */

import { connect } from "./connect.js";
import { resolveOptions } from "./options.js";
import type { OpenOptions } from "./options.js";
import { randomHexId } from "./platform.js";
import type { LocksLike, OwnerPort, Platform } from "./platform.js";
import { startOwnerRuntime } from "./owner-runtime.js";
import { TinyJoinError } from "./errors.js";
import type { Client, RowObject } from "./client.js";
import type { SqlValue } from "./protocol.js";

export { TinyJoinError } from "./errors.js";
export type { Client, Transaction, PreparedStatement, QueryResult, BindParams, RowObject } from "./client.js";
export type { OpenOptions } from "./options.js";

const noLocks: LocksLike = {
  request: () => Promise.reject(new TinyJoinError("MISUSE", "the in-worker API takes no locks")),
};

/** A platform whose owner runs in this very Worker. */
function inWorkerPlatform(): Platform {
  return {
    locks: noLocks,
    createChannel: () => {
      throw new TinyJoinError("MISUSE", "the in-worker API opens no channel");
    },
    randomId: randomHexId,
    async startOwner(name, clientId, options) {
      const port: OwnerPort = {
        post: (bytes) => queueMicrotask(() => runtime.request(bytes)),
        onmessage: null,
        onfailure: null,
        terminate: async () => runtime.stop(),
        // The owner is in this thread: calls go straight into the wasm.
        direct: (req, epoch) => (epoch === runtime.epoch ? runtime.direct(req) : null),
      };
      const runtime = await startOwnerRuntime(
        name,
        clientId,
        options,
        false,
        (bytes) => port.onmessage?.(bytes),
        (err) => port.onfailure?.(err.code, err.message),
      );
      return port;
    },
  };
}

/** Opens database `name` in this Worker. Rejects with STORAGE_UNAVAILABLE outside a Worker or without OPFS. */
export function openInWorker(name: string, options: OpenOptions & { readonly rows: "object" }): Promise<Client<RowObject>>;
export function openInWorker(name: string, options?: OpenOptions): Promise<Client<SqlValue[]>>;
export async function openInWorker(name: string, options?: OpenOptions): Promise<Client<SqlValue[]> | Client<RowObject>> {
  const opts = resolveOptions(name, options);
  const platform = inWorkerPlatform();
  return opts.rows === "object" ? connect<RowObject>(platform, name, opts, false) : connect<SqlValue[]>(platform, name, opts, false);
}
