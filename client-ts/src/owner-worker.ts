/**
 * The owner Worker's entry script: started by the owner tab's client
 * (browser.ts), it opens the database and serves this tab (postMessage) and
 * the followers (BroadcastChannel, listened to here so follower traffic never
 * passes through the owner tab's main thread).
 */

import { parseToOwnerWorker, transferList } from "./owner-messages.js";
import type { FromOwnerControl } from "./owner-messages.js";
import { startOwnerRuntime, wasmError } from "./owner-runtime.js";
import type { OwnerRuntime } from "./owner-runtime.js";
import { Poller } from "./poll.js";

interface WorkerScope {
  postMessage(message: FromOwnerControl | Uint8Array, transfer?: Transferable[]): void;
  onmessage: ((ev: MessageEvent<unknown>) => void) | null;
  close(): void;
}

const scope = globalThis as unknown as WorkerScope;
let runtime: OwnerRuntime | null = null;
let starting = false;
/** Keeps this Worker awake for a moment after each answer to its tab (poll.ts); set at "start". */
let poller: Poller | null = null;

scope.onmessage = (ev: MessageEvent<unknown>) => {
  const msg = parseToOwnerWorker(ev.data);
  if (msg === null) return;
  switch (msg.type) {
    case "start":
      if (starting) return;
      starting = true;
      poller = new Poller(msg.options.pollMs);
      startOwnerRuntime(
        msg.name,
        msg.clientId,
        msg.options,
        msg.options.storage === "opfs",
        (bytes) => {
          scope.postMessage(bytes, transferList(bytes));
          poller?.extend();
        },
        (err) => scope.postMessage({ type: "failed", code: err.code, message: err.message }),
      ).then(
        (rt) => {
          runtime = rt;
          scope.postMessage({ type: "started", epoch: rt.epoch });
        },
        (e: unknown) => {
          const err = wasmError(e);
          scope.postMessage({ type: "failed", code: err.code, message: err.message });
        },
      );
      return;
    case "request":
      runtime?.request(msg.bytes);
      return;
    case "stop":
      runtime?.stop();
      runtime = null;
      poller?.close();
      poller = null;
      scope.postMessage({ type: "stopped" });
      scope.close();
      return;
  }
};
