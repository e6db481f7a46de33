/**
 * `Poller`: keeps a thread's event loop turning for a short while, so that a
 * message arriving meanwhile is handled at once instead of after the thread
 * has gone to sleep and must be woken.
 *
 * Why: a statement from the page is a round trip between the page and its
 * owner Worker, and a round trip between two idle threads pays two wake-ups.
 * On the 2-core machine of the comparison (Chromium 156) a bare round trip
 * of a small message between a page and a Worker took 81-93 µs; with the
 * Worker turning its loop for 0.5 ms after each answer 41, with the page
 * turning while it waits 46, with both 28 (medians of 5 rounds of 1,000).
 * A transaction sent from the page, statement by statement, pays that per
 * statement, so the owner Worker turns after each answer to its tab (the
 * next request of a burst finds it awake) and the tab while a request to
 * it is in flight.
 *
 * Not for BroadcastChannel traffic (followers): its messages pass through
 * the browser's own process, whose wake-ups polling in our threads does not
 * save. With both sides polling around the channel too, a follower's
 * `SELECT 1` took 653-716 µs against 540-690 without (four runs each, in
 * balanced order, scripts/inworker-timing/follower-path.mjs): no gain.
 *
 * How: a MessageChannel whose port posts to itself until a deadline. Each
 * turn is a task of its own, so messages, timers, input and rendering run
 * between turns in their usual order; nothing is blocked, only kept awake.
 *
 * Cost: at most `ms` of one core per burst of activity (each `extend` moves
 * the deadline), none when idle. `OpenOptions.pollMs` sets it; 0 turns the
 * poller off.
 */

interface PortLike {
  postMessage(message: null): void;
  onmessage: (() => void) | null;
  close(): void;
}

export class Poller {
  private until = 0;
  private turning = false;
  private readonly self: PortLike | null;
  private readonly other: PortLike | null;

  /** `ms` 0 (or no MessageChannel in this environment) makes every call a no-op. */
  constructor(private readonly ms: number) {
    if (ms > 0 && typeof MessageChannel === "function") {
      const ch = new MessageChannel();
      this.self = ch.port1 as unknown as PortLike;
      this.other = ch.port2 as unknown as PortLike;
      this.self.onmessage = () => this.turn();
      // Node's ports keep a process alive while they listen (setting
      // `onmessage` refs them); a poller must not.
      (ch.port1 as unknown as { unref?: () => void }).unref?.();
      (ch.port2 as unknown as { unref?: () => void }).unref?.();
    } else {
      this.self = null;
      this.other = null;
    }
  }

  /** Keeps the loop turning until `ms` from now (from now on, if it had stopped). */
  extend(): void {
    if (this.other === null) return;
    this.until = performance.now() + this.ms;
    if (!this.turning) {
      this.turning = true;
      this.other.postMessage(null);
    }
  }

  /** Stops at the next turn. */
  stop(): void {
    this.until = 0;
  }

  /** Whether a turn is scheduled (for tests). */
  get active(): boolean {
    return this.turning;
  }

  /** Stops and releases the channel. */
  close(): void {
    this.until = 0;
    this.turning = false;
    if (this.self !== null) this.self.onmessage = null;
    this.self?.close();
    this.other?.close();
  }

  private turn(): void {
    if (performance.now() < this.until) this.other?.postMessage(null);
    else this.turning = false;
  }
}
