/**
 * What the client needs from its environment, as small interfaces: Web Locks,
 * BroadcastChannel and the owner Worker. The browser implementation is
 * `browserPlatform()`; the Node tests pass fakes, so election, proxying and
 * failover are tested without a browser.
 */

import type { Request } from "./protocol.js";

/** The subset of `LockManager` the client uses. */
export interface LocksLike {
  request(name: string, options: { ifAvailable?: boolean; signal?: AbortSignal }, callback: (lock: unknown) => Promise<void> | void): Promise<void>;
}

/** The subset of `BroadcastChannel` the client uses. */
export interface ChannelLike {
  postMessage(message: Uint8Array): void;
  close(): void;
  onmessage: ((ev: { data: unknown }) => void) | null;
}

/** Options the owner applies when it opens the database. */
export interface OwnerOptions {
  readonly storage: "opfs" | "memory";
  readonly batchLimitBytes: number;
  readonly validation: "full" | "quick";
  readonly cachePages: number;
  readonly commit: CommitOption;
  /** How long a thread polls for the next message (`OpenOptions.pollMs`, poll.ts). */
  readonly pollMs: number;
}

/** How a commit becomes durable (see `OpenOptions.commit`). */
export type CommitOption = "two-flush" | "one-flush" | "deferred";

/** The owner Worker as seen from its tab: a port for request bytes. */
export interface OwnerPort {
  /** Sends request bytes to the owner. */
  post(bytes: Uint8Array): void;
  /** Responses for this tab's client; `failed` when the Worker dies or cannot open the database. */
  onmessage: ((bytes: Uint8Array) => void) | null;
  onfailure: ((code: string, message: string) => void) | null;
  /** Stops the Worker (closing the database and its file handle). */
  terminate(): Promise<void>;
  /**
   * Present only when the owner runs in this very thread (the in-worker
   * API): answers `req` at once, as the response's kind byte and body (no
   * envelope), if the owner's epoch is `epoch` and the request needs no
   * waiting; null means "send it as a message". The bytes are a view of
   * the module's memory, valid until the next call into the owner: decode
   * them at once.
   */
  direct?(req: Request, epoch: number): Uint8Array | null;
}

export interface Platform {
  readonly locks: LocksLike;
  createChannel(name: string): ChannelLike;
  /** Starts the owner for `name` and resolves once it listens (or rejects with a typed error). */
  startOwner(name: string, clientId: string, options: OwnerOptions): Promise<OwnerPort>;
  /** A random client id: 16 hex digits. */
  randomId(): string;
}

/** Random 16 hex digits from the platform's CSPRNG. */
export function randomHexId(): string {
  const b = new Uint8Array(8);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}
