/**
 * The control messages between a tab and its own owner Worker (not the wire
 * protocol: those are only the bytes of `protocol.ts`, carried as
 * `{ type: "request" | "response", bytes }`). A closed union each way, and a
 * validator each way, because even a same-tab Worker is a message boundary.
 */

import type { OwnerOptions } from "./platform.js";

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
    (v.commit === "two-flush" || v.commit === "one-flush" || v.commit === "deferred")
  );
}

/** Validates a message received by the owner Worker; null if malformed. */
export function parseToOwnerWorker(v: unknown): ToOwnerWorker | null {
  if (!isRecord(v)) return null;
  switch (v.type) {
    case "start":
      return typeof v.name === "string" && typeof v.clientId === "string" && isOwnerOptions(v.options)
        ? { type: "start", name: v.name, clientId: v.clientId, options: v.options }
        : null;
    case "request":
      return v.bytes instanceof Uint8Array ? { type: "request", bytes: v.bytes } : null;
    case "stop":
      return { type: "stop" };
    default:
      return null;
  }
}

/** Validates a message received from the owner Worker; null if malformed. */
export function parseFromOwnerWorker(v: unknown): FromOwnerWorker | null {
  if (!isRecord(v)) return null;
  switch (v.type) {
    case "started":
      return typeof v.epoch === "number" ? { type: "started", epoch: v.epoch } : null;
    case "failed":
      return typeof v.code === "string" && typeof v.message === "string" ? { type: "failed", code: v.code, message: v.message } : null;
    case "response":
      return v.bytes instanceof Uint8Array ? { type: "response", bytes: v.bytes } : null;
    case "stopped":
      return { type: "stopped" };
    default:
      return null;
  }
}
