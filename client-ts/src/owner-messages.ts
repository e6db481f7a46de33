/**
 * Messages between a tab and its own owner Worker: requests and responses
 * are the wire bytes (protocol.ts) as a bare Uint8Array, copied below
 * TRANSFER_MIN_BYTES (cheaper than a transfer or a wrapper object);
 * control messages are objects with a `type`. Validated each way: even a
 * same-tab Worker is a message boundary.
 */

import type { OwnerOptions } from "./platform.js";
import { MAX_POLL_MS } from "./options.js";

/** Messages at least this long are transferred instead of copied. */
export const TRANSFER_MIN_BYTES = 64 * 1024;

/** The transfer list for posting `bytes` (a message of its own buffer). */
export function transferList(bytes: Uint8Array): Transferable[] {
  return bytes.length >= TRANSFER_MIN_BYTES ? [bytes.buffer] : [];
}

export type ToOwnerWorker =
  | { readonly type: "start"; readonly name: string; readonly clientId: string; readonly options: OwnerOptions }
  | { readonly type: "request"; readonly bytes: Uint8Array }
  | { readonly type: "stop" };

export type FromOwnerWorker =
  | { readonly type: "started"; readonly epoch: number }
  | { readonly type: "failed"; readonly code: string; readonly message: string }
  | { readonly type: "response"; readonly bytes: Uint8Array }
  | { readonly type: "stopped" };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

function isOwnerOptions(v: unknown): v is OwnerOptions {
  return (
    isRecord(v) &&
    (v.storage === "opfs" || v.storage === "memory") &&
    typeof v.batchLimitBytes === "number" &&
    (v.validation === "full" || v.validation === "quick") &&
    typeof v.cachePages === "number" &&
    (v.commit === "two-flush" || v.commit === "one-flush" || v.commit === "deferred") &&
    typeof v.pollMs === "number" &&
    v.pollMs >= 0 &&
    v.pollMs <= MAX_POLL_MS
  );
}

export type ToOwnerControl = Exclude<ToOwnerWorker, { type: "request" }>;
export type FromOwnerControl = Exclude<FromOwnerWorker, { type: "response" }>;

/** Validates a message received by the owner Worker; null if malformed. */
export function parseToOwnerWorker(v: unknown): ToOwnerWorker | null {
  if (v instanceof Uint8Array) return { type: "request", bytes: v };
  if (!isRecord(v)) return null;
  switch (v.type) {
    case "start":
      return typeof v.name === "string" && typeof v.clientId === "string" && isOwnerOptions(v.options)
        ? { type: "start", name: v.name, clientId: v.clientId, options: v.options }
        : null;
    case "stop":
      return { type: "stop" };
    default:
      return null;
  }
}

/** Validates a message received from the owner Worker; null if malformed. */
export function parseFromOwnerWorker(v: unknown): FromOwnerWorker | null {
  if (v instanceof Uint8Array) return { type: "response", bytes: v };
  if (!isRecord(v)) return null;
  switch (v.type) {
    case "started":
      return typeof v.epoch === "number" ? { type: "started", epoch: v.epoch } : null;
    case "failed":
      return typeof v.code === "string" && typeof v.message === "string" ? { type: "failed", code: v.code, message: v.message } : null;
    case "stopped":
      return { type: "stopped" };
    default:
      return null;
  }
}
