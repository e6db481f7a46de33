/**
 * `Session`: one client's connection to the owner of a database — election,
 * the route to the owner (this tab's own Worker, or the BroadcastChannel),
 * owner epochs, and failover. `Client` (client.ts) builds the public API on
 * `Session.call`.
 *
 * States (drawn once; `connected` is the only flag the request path reads):
 *
 *     starting ──(election lock free)──▶ owner: start Worker ──OPENED──▶ connected
 *        │                                                        ▲
 *        └─(lock held elsewhere)──▶ follower: send OPEN ──OPENED──┘
 *     connected ──(owner's client lock released, or a READY/response
 *                  with a higher epoch)──▶ lost ──▶ follower: send OPEN
 *     lost/follower ──(our queued election lock request granted)──▶ owner
 *     any ──close()──▶ closed
 *
 * Facts per state: `connected` ⇔ `epoch` and `owner` name the live owner and
 * requests are transmitted at once; otherwise requests wait in `pending` and
 * are transmitted on the next OPENED. A request transmitted to an owner that
 * is then lost rejects with `LostInFlight` (it may or may not have taken
 * effect); the caller decides — retry, ask "did X commit?", or OWNER_LOST.
 *
 * `checkState` verifies these facts after every transition (reporting on the
 * console, never throwing: it runs inside event listeners).
 *
 * Why event-driven: BroadcastChannel does not buffer, so a follower re-sends
 * OPEN whenever an owner announces READY, and an owner announces READY only
 * after it listens. Whichever comes first, the handshake completes, with no
 * polling and no timers (the open timeout is a safety net, not a mechanism).
 */

import { channelName, clientLock, electionLock } from "./names.js";
import { ProtocolError, decodeResponse, decodeResponseBody, encodeRequest, peekEnvelope, ResponseKind } from "./protocol.js";
import type { IntegerMode, Request, Response } from "./protocol.js";
import type { ChannelLike, OwnerOptions, OwnerPort, Platform } from "./platform.js";
import { TinyJoinError, fromWire } from "./errors.js";
import { Poller } from "./poll.js";

/** This tab's role for a database. */
export type Role = "owner" | "follower";

/** Thrown by `call` when the owner was lost after the request was transmitted. */
export class LostInFlight extends Error {
  constructor() {
    super("the owner was lost while a request was in flight");
    this.name = "LostInFlight";
  }
}

class Deferred<T> {
  readonly promise: Promise<T>;
  resolve!: (v: T) => void;
  reject!: (e: unknown) => void;
  constructor() {
    this.promise = new Promise<T>((res, rej) => {
      this.resolve = res;
      this.reject = rej;
    });
  }
}

interface Pending {
  readonly id: number;
  readonly req: Request;
  /** Epoch it was transmitted to, or null while waiting for an owner. */
  sentEpoch: number | null;
  /** Only this owner may run it (requests of a client transaction): lost with it. */
  readonly pinned: number | null;
  readonly done: Deferred<Response>;
}

export interface SessionOptions {
  readonly name: string;
  readonly owner: OwnerOptions;
  readonly integers: IntegerMode;
  readonly openTimeoutMs: number;
  /** Memory databases are private to their client: no election, no channel. */
  readonly shared: boolean;
}

export class Session {
  readonly clientId: string;
  role: Role | null = null;
  epoch = 0;
  private owner: string | null = null;
  private connected = false;
  private closed = false;
  private nextRequest = 1;
  private readonly pending = new Map<number, Pending>();
  private channel: ChannelLike | null = null;
  private port: OwnerPort | null = null;
  /** Resolved at close(): releases the election lock and this client's lock. */
  private readonly lifetime = new Deferred<void>();
  /** Aborts queued lock requests at close(). */
  private readonly abort = new AbortController();
  /** Aborts the watch on the current owner's client lock. */
  private ownerWatch: AbortController | null = null;
  private openRequest: number | null = null;
  private readonly firstOpen = new Deferred<void>();
  private readonly roleListeners = new Set<(role: Role) => void>();
  /** Keeps this thread awake while a request is in flight to another thread (poll.ts). */
  private readonly poller: Poller;

  constructor(private readonly platform: Platform, private readonly opts: SessionOptions) {
    this.clientId = platform.randomId();
    this.poller = new Poller(opts.owner.pollMs);
  }

  /** Runs the election and the first handshake; resolves when connected. */
  async start(): Promise<void> {
    const { locks } = this.platform;
    const timer = setTimeout(() => {
      this.firstOpen.reject(new TinyJoinError("OPEN_TIMEOUT", `no owner for database "${this.opts.name}" answered within ${this.opts.openTimeoutMs} ms`));
    }, this.opts.openTimeoutMs);
    try {
      if (this.opts.shared) {
        void locks.request(clientLock(this.opts.name, this.clientId), { signal: this.abort.signal }, () => this.lifetime.promise).catch(() => undefined);
        this.channel = this.platform.createChannel(channelName(this.opts.name));
        this.channel.onmessage = (ev) => this.onChannelMessage(ev.data);
        const acquired = new Deferred<boolean>();
        void locks
          .request(electionLock(this.opts.name), { ifAvailable: true }, (lock) => {
            acquired.resolve(lock !== null);
            return lock !== null ? this.lifetime.promise : undefined;
          })
          .catch((e: unknown) => acquired.reject(e));
        if (await acquired.promise) {
          void this.becomeOwner();
        } else {
          this.setRole("follower");
          this.sendOpen();
          void locks
            .request(electionLock(this.opts.name), { signal: this.abort.signal }, () => {
              if (this.closed) return undefined;
              void this.becomeOwner();
              return this.lifetime.promise;
            })
            .catch(() => undefined);
        }
      } else {
        void this.becomeOwner();
      }
      await this.firstOpen.promise;
    } catch (e) {
      await this.close();
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  onRoleChange(listener: (role: Role) => void): () => void {
    this.roleListeners.add(listener);
    return () => this.roleListeners.delete(listener);
  }

  private setRole(role: Role): void {
    if (this.role === role) return;
    this.role = role;
    for (const l of this.roleListeners) {
      try {
        l(role);
      } catch {
        // A listener's failure is its own; the session carries on.
      }
    }
  }

  private async becomeOwner(): Promise<void> {
    if (this.closed) return;
    this.setRole("owner");
    // Follower traffic now goes to our Worker, which listens on the channel
    // itself. Closed before `ownerLost`, whose state check requires that an
    // owner tab no longer reads the channel (it reported a broken state when
    // a tab became owner while still connected to the previous owner).
    if (this.channel !== null) {
      this.channel.onmessage = null;
      this.channel.close();
      this.channel = null;
    }
    if (this.connected) this.ownerLost(this.epoch);
    try {
      const port = await this.platform.startOwner(this.opts.name, this.clientId, this.opts.owner);
      if (this.closed) {
        await port.terminate();
        return;
      }
      this.port = port;
      port.onmessage = (bytes) => this.onResponse(bytes);
      port.onfailure = (code, message) => this.fail(fromWire(code, message, undefined));
      this.sendOpen();
    } catch (e) {
      this.fail(e instanceof TinyJoinError ? e : new TinyJoinError("WORKER_FAILED", String(e)));
    }
  }

  /** A fatal failure of this client (its owner Worker died or could not open the database). */
  private fail(err: TinyJoinError): void {
    this.firstOpen.reject(err);
    for (const p of this.pending.values()) p.done.reject(err);
    this.pending.clear();
    void this.close();
  }

  private sendOpen(): void {
    if (this.closed) return;
    if (this.openRequest !== null) this.pending.delete(this.openRequest);
    const id = this.takeRequestId();
    this.openRequest = id;
    this.transmit(id, { kind: "open" }, 0);
  }

  private takeRequestId(): number {
    const id = this.nextRequest;
    this.nextRequest = this.nextRequest >= 0xffffffff ? 1 : this.nextRequest + 1;
    return id;
  }

  /** Encodes and posts; a request that cannot be encoded fails alone (never throws). */
  private transmit(id: number, req: Request, epoch: number): void {
    let bytes: Uint8Array;
    try {
      bytes = encodeRequest({ epoch, client: this.clientId, request: id }, req);
    } catch (e) {
      const p = this.pending.get(id);
      this.pending.delete(id);
      p?.done.reject(new TinyJoinError("INVALID_ARGUMENT", `the request cannot be encoded: ${e instanceof Error ? e.message : String(e)}`));
      return;
    }
    if (this.port !== null) {
      this.port.post(bytes);
      // An owner in this very thread (the in-worker API) answers without a wake-up.
      if (this.port.direct === undefined) this.poller.extend();
    } else if (this.channel !== null) {
      // No polling here: a BroadcastChannel message passes through the
      // browser's own process, and polling gained followers nothing (poll.ts).
      this.channel.postMessage(bytes);
    }
  }

  /**
   * Sends a request to the owner, waiting for one if none is connected.
   * Rejects with `LostInFlight` if the owner is lost after transmission, or
   * with the owner's typed error. A request `pinned` to an epoch is sent only
   * to that owner; if it is gone, the request rejects with `LostInFlight`.
   */
  call(req: Request, pinned: number | null = null): Promise<Response> {
    try {
      const now = this.tryDirect(req, pinned);
      if (now !== null) return Promise.resolve(now);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.send(req, pinned);
  }

  /** `call` after `tryDirect` answered null. */
  send(req: Request, pinned: number | null = null): Promise<Response> {
    if (this.closed) return Promise.reject(new TinyJoinError("CLOSED", "the database client is closed"));
    if (pinned !== null && (!this.connected || this.epoch !== pinned)) return Promise.reject(new LostInFlight());
    const p: Pending = { id: this.takeRequestId(), req, sentEpoch: null, pinned, done: new Deferred<Response>() };
    this.pending.set(p.id, p);
    if (this.connected) {
      p.sentEpoch = this.epoch;
      this.transmit(p.id, req, this.epoch);
    }
    return p.done.promise;
  }

  /**
   * An in-thread owner's answer, now, or null (none, messages in flight,
   * another epoch, closed): then `send`. Throws typed errors, not `LostInFlight`.
   */
  tryDirect(req: Request, pinned: number | null = null): Response | null {
    if (this.closed || !this.connected || this.pending.size !== 0 || this.port?.direct === undefined) return null;
    if (pinned !== null && this.epoch !== pinned) return null;
    let bytes: Uint8Array | null;
    try {
      bytes = this.port.direct(req, this.epoch);
    } catch (e) {
      throw e instanceof TinyJoinError ? e : new TinyJoinError("WORKER_FAILED", String(e));
    }
    if (bytes === null) return null;
    let response: Response;
    try {
      response = decodeResponseBody(bytes, this.opts.integers);
    } catch (e) {
      const code = e instanceof ProtocolError ? e.code : "MALFORMED_MESSAGE";
      throw new TinyJoinError(code, e instanceof Error ? e.message : String(e));
    }
    if (response.kind === "failed") throw fromWire(response.error.code, response.error.message, response.error.position);
    return response;
  }

  private onChannelMessage(data: unknown): void {
    if (!(data instanceof Uint8Array)) return; // not ours: nothing to answer on a broadcast
    let kind: number;
    let client: string;
    let epoch: number;
    try {
      const peek = peekEnvelope(data);
      kind = peek.kind;
      client = peek.envelope.client;
      epoch = peek.envelope.epoch;
    } catch {
      return; // malformed broadcast; requests of other clients also land here
    }
    if (kind === ResponseKind.Ready) {
      if (this.port === null && (!this.connected || epoch > this.epoch)) {
        if (this.connected) this.ownerLost(this.epoch);
        this.sendOpen();
      }
      return;
    }
    if (client === this.clientId && kind >= ResponseKind.Ready && this.port === null) this.onResponse(data);
  }

  private onResponse(bytes: Uint8Array): void {
    let decoded: ReturnType<typeof decodeResponse>;
    try {
      decoded = decodeResponse(bytes, this.opts.integers);
    } catch (e) {
      // A response we cannot read: fail the request it names, if any.
      if (e instanceof ProtocolError && e.envelope !== undefined) {
        const p = this.pending.get(e.envelope.request);
        if (p !== undefined && e.envelope.client === this.clientId) {
          this.pending.delete(p.id);
          p.done.reject(new TinyJoinError(e.code, e.message));
        }
      }
      return;
    }
    const { envelope, response } = decoded;
    if (envelope.client !== this.clientId) return;
    if (response.kind === "ready") {
      // Our own owner reopened under a new epoch (an import): re-open with it.
      if (this.connected && envelope.epoch > this.epoch) this.ownerLost(this.epoch);
      return;
    }
    if (envelope.request === this.openRequest) {
      if (response.kind === "opened" && (!this.connected || envelope.epoch >= this.epoch)) this.onOpened(envelope.epoch, response.owner);
      else if (response.kind === "failed") this.fail(fromWire(response.error.code, response.error.message, response.error.position));
      return;
    }
    const p = this.pending.get(envelope.request);
    if (p === undefined || p.sentEpoch === null) return;
    if (envelope.epoch < p.sentEpoch) return; // a stale owner's answer
    if (envelope.epoch > p.sentEpoch || (response.kind === "failed" && response.error.code === "STALE_EPOCH")) {
      // Our request reached a newer owner that refused it: the owner changed.
      if (this.connected && this.epoch === p.sentEpoch) this.ownerLost(this.epoch);
      return;
    }
    this.pending.delete(p.id);
    if (this.pending.size === 0) this.poller.stop();
    if (response.kind === "failed") {
      p.done.reject(fromWire(response.error.code, response.error.message, response.error.position));
    } else {
      p.done.resolve(response);
    }
  }

  private onOpened(epoch: number, owner: string): void {
    this.openRequest = null;
    this.epoch = epoch;
    this.owner = owner;
    this.connected = true;
    if (this.port === null) this.watchOwner(epoch, owner);
    for (const p of this.pending.values()) {
      if (p.sentEpoch === null) {
        p.sentEpoch = epoch;
        this.transmit(p.id, p.req, epoch);
      }
    }
    this.firstOpen.resolve();
    this.checkState("OPENED");
  }

  /** Learns when the owner's client (and so its tab) is gone: its lock is released. */
  private watchOwner(epoch: number, owner: string): void {
    this.ownerWatch?.abort();
    const watch = new AbortController();
    this.ownerWatch = watch;
    const signal = AbortSignal.any([watch.signal, this.abort.signal]);
    void this.platform.locks
      .request(clientLock(this.opts.name, owner), { signal }, () => {
        if (!this.closed) this.ownerLost(epoch);
      })
      .catch(() => undefined);
  }

  /** The owner of `epoch` is gone: requests in flight reject with LostInFlight, the rest wait. */
  private ownerLost(epoch: number): void {
    if (!this.connected || epoch !== this.epoch) return;
    this.connected = false;
    this.owner = null;
    this.ownerWatch?.abort();
    this.ownerWatch = null;
    for (const p of [...this.pending.values()]) {
      if (p.sentEpoch !== null || p.pinned !== null) {
        this.pending.delete(p.id);
        p.done.reject(new LostInFlight());
      }
    }
    if (this.role !== "owner") {
      this.setRole("follower");
      this.sendOpen();
    } else if (this.port !== null) {
      this.sendOpen();
    }
    this.checkState("owner lost");
  }

  /** The facts of the state diagram above; a violation is a bug, reported, not thrown. */
  private checkState(where: string): void {
    const broken: string[] = [];
    if (this.connected && this.owner === null) broken.push("connected without an owner");
    if (this.closed && (this.connected || this.pending.size > 0)) broken.push("closed with a connection or pending requests");
    if (this.role === "owner" && this.channel !== null) broken.push("owner still reading the channel on the main thread");
    if (!this.connected) {
      for (const p of this.pending.values()) if (p.sentEpoch !== null) broken.push(`request ${p.id} in flight while disconnected`);
    }
    if (broken.length > 0) console.error(`tinyjoin: session state broken after ${where}: ${broken.join("; ")}`);
  }

  /** The current owner's client id (null while none is connected). */
  get ownerId(): string | null {
    return this.owner;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.connected && this.port === null) {
      // Best effort: the owner also learns from our client lock.
      this.transmit(this.takeRequestId(), { kind: "close" }, this.epoch);
    }
    this.closed = true;
    this.connected = false;
    for (const p of this.pending.values()) p.done.reject(new TinyJoinError("CLOSED", "the database client was closed"));
    this.pending.clear();
    this.abort.abort();
    this.ownerWatch?.abort();
    this.poller.close();
    if (this.channel !== null) {
      this.channel.onmessage = null;
      this.channel.close();
    }
    const port = this.port;
    this.port = null;
    if (port !== null) await port.terminate();
    this.lifetime.resolve();
    this.checkState("close");
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
