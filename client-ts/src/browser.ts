/**
 * The browser `Platform`: Web Locks, BroadcastChannel, and the owner started
 * as a dedicated module Worker (owner-worker.js, resolved relative to this
 * module so the package works from a bundler and from a plain
 * `<script type=module>`).
 */

import type { ChannelLike, OwnerOptions, OwnerPort, Platform } from "./platform.js";
import { randomHexId } from "./platform.js";
import { parseFromOwnerWorker, transferList } from "./owner-messages.js";
import type { ToOwnerControl } from "./owner-messages.js";
import { TinyJoinError, fromWire } from "./errors.js";

function wrapChannel(bc: BroadcastChannel): ChannelLike {
  const c: ChannelLike = {
    postMessage: (m) => bc.postMessage(m),
    close: () => bc.close(),
    onmessage: null,
  };
  bc.onmessage = (ev: MessageEvent<unknown>) => c.onmessage?.({ data: ev.data });
  return c;
}

/** How long closing waits for the owner Worker to close the file before ending it. */
const STOP_WAIT_MS = 5_000;

function startOwnerWorker(name: string, clientId: string, options: OwnerOptions): Promise<OwnerPort> {
  const worker = new Worker(new URL("./owner-worker.js", import.meta.url), { type: "module", name: `tinyjoin owner: ${name}` });
  const send = (m: ToOwnerControl): void => worker.postMessage(m);
  let started = false;
  let dead = false;
  let onStopped: (() => void) | null = null;
  const port: OwnerPort = {
    post: (bytes) => worker.postMessage(bytes, transferList(bytes)),
    onmessage: null,
    onfailure: null,
    // Asks the Worker to close the database and its file handle, then ends it.
    // A Worker that died, or does not answer within STOP_WAIT_MS (stuck in a
    // long statement), is ended at once: closing must never hang, because the
    // election lock is released only after it.
    terminate: () =>
      new Promise<void>((resolve) => {
        const finish = (): void => {
          clearTimeout(timer);
          worker.terminate();
          resolve();
        };
        const timer = setTimeout(finish, dead ? 0 : STOP_WAIT_MS);
        onStopped = finish;
        if (!dead) send({ type: "stop" });
      }),
  };
  return new Promise<OwnerPort>((resolve, reject) => {
    worker.onmessage = (ev: MessageEvent<unknown>) => {
      const m = parseFromOwnerWorker(ev.data);
      if (m === null) return;
      switch (m.type) {
        case "started":
          started = true;
          resolve(port);
          return;
        case "failed":
          if (!started) {
            worker.terminate();
            reject(fromWire(m.code, m.message, undefined));
          } else {
            port.onfailure?.(m.code, m.message);
          }
          return;
        case "response":
          port.onmessage?.(m.bytes);
          return;
        case "stopped":
          onStopped?.();
          return;
      }
    };
    worker.onerror = (ev: ErrorEvent) => {
      ev.preventDefault();
      dead = true;
      const message = `the owner Worker failed: ${ev.message || "script error (is owner-worker.js served next to index.js?)"}`;
      if (!started) {
        worker.terminate();
        reject(new TinyJoinError("WORKER_FAILED", message));
      } else {
        port.onfailure?.("WORKER_FAILED", message);
        onStopped?.();
      }
    };
    send({ type: "start", name, clientId, options });
  });
}

/** The platform of a browser page. */
export function browserPlatform(): Platform {
  if (typeof navigator === "undefined" || navigator.locks === undefined || typeof BroadcastChannel === "undefined") {
    throw new TinyJoinError("STORAGE_UNAVAILABLE", "this browser lacks Web Locks or BroadcastChannel, which TinyJoin needs to share a database between tabs");
  }
  return {
    locks: navigator.locks,
    createChannel: (name) => wrapChannel(new BroadcastChannel(name)),
    startOwner: startOwnerWorker,
    randomId: randomHexId,
  };
}
