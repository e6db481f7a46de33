/**
 * `OpenOptions` and their defaults, validated in one place for `open()` (index.ts)
 * and `openInWorker()` (worker.ts).
 */

import type { IntegerMode } from "./protocol.js";
import type { CommitOption, OwnerOptions } from "./platform.js";
import { TinyJoinError } from "./errors.js";
import { validName } from "./names.js";

export interface OpenOptions {
  /** "opfs" (default): persisted, shared by all tabs of the origin. "memory": private to this client, for tests and demos. */
  readonly storage?: "opfs" | "memory";
  /** Bound on the memory a write transaction retains (default 16 MiB). */
  readonly batchLimitBytes?: number;
  /** Validation of the file at open: "full" (default) walks every tree; "quick" checks the superblocks. */
  readonly validation?: "full" | "quick";
  /**
   * How a commit becomes durable: "one-flush" (default) writes the pages and the
   * superblock and flushes once; about 100 ms after the last commit the owner confirms it
   * (one more write and flush, off the commit's path), and until then damage to a page of
   * that commit opens the file at the previous commit instead of reporting it (as SQLite's
   * WAL does with a damaged last frame). "two-flush" flushes the pages, then the
   * superblock: damage is always reported, at about twice the cost of a small commit.
   * "deferred" does not flush at commit (SQLite's WAL with synchronous=NORMAL): a resolved
   * commit survives its tab or the browser crashing, and the owner flushes within about
   * 100 ms of it and before it closes; a power loss or OS crash before that flush can lose
   * the commits of that moment, never the ones before it, never the file's consistency.
   */
  readonly commit?: CommitOption;
  /** Page cache size in pages (default 8192: about 34 MiB of 4 KiB pages, their index included). */
  readonly cachePages?: number;
  /** INTEGER as number (bigint beyond 2^53; default) or always bigint. */
  readonly integers?: IntegerMode;
  /** Rows as arrays (default) or as objects keyed by column name. */
  readonly rows?: "array" | "object";
  /** Numbered migrations: migration i (0-based) is applied once, in its own transaction, at the owner. */
  readonly migrations?: readonly string[];
  /** Bound on how long `open` waits for an owner (default 30 s). */
  readonly openTimeoutMs?: number;
  /**
   * How long, in ms, a thread keeps its event loop turning to catch the next
   * message at once (poll.ts): the owner Worker after each answer, the page
   * while a request is in flight (default 1; 0 to 50; 0 turns it off). It
   * saves two thread wake-ups per statement sent from the page, at the cost
   * of up to that much CPU time per burst of statements. The owner uses the
   * value of the tab that started it.
   */
  readonly pollMs?: number;
}

/** `OpenOptions.pollMs`'s default and bound. */
export const DEFAULT_POLL_MS = 1;
export const MAX_POLL_MS = 50;

export interface ResolvedOptions {
  readonly owner: OwnerOptions;
  readonly integers: IntegerMode;
  readonly rows: "array" | "object";
  readonly migrations: readonly string[];
  readonly openTimeoutMs: number;
}

function positiveInt(v: unknown, what: string, dflt: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v <= 0) {
    throw new TinyJoinError("INVALID_ARGUMENT", `${what} must be a positive integer, got ${String(v)}`);
  }
  return v;
}

function msInRange(v: unknown, what: string, max: number, dflt: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > max) {
    throw new TinyJoinError("INVALID_ARGUMENT", `${what} must be a number from 0 to ${max}, got ${String(v)}`);
  }
  return v;
}

function oneOf<T extends string>(v: unknown, what: string, allowed: readonly T[], dflt: T): T {
  if (v === undefined) return dflt;
  const found = allowed.find((a) => a === v);
  if (found === undefined) throw new TinyJoinError("INVALID_ARGUMENT", `${what} must be one of ${allowed.join(", ")}, got ${String(v)}`);
  return found;
}

export function resolveOptions(name: unknown, o: OpenOptions | undefined): ResolvedOptions {
  if (!validName(name)) throw new TinyJoinError("INVALID_ARGUMENT", "the database name must be a non-empty string of at most 128 characters");
  const opts = o ?? {};
  const migrations = opts.migrations ?? [];
  if (!Array.isArray(migrations) || !migrations.every((m) => typeof m === "string")) {
    throw new TinyJoinError("INVALID_ARGUMENT", "migrations must be an array of SQL strings");
  }
  return {
    owner: {
      storage: oneOf(opts.storage, "storage", ["opfs", "memory"], "opfs"),
      batchLimitBytes: positiveInt(opts.batchLimitBytes, "batchLimitBytes", 16 * 1024 * 1024),
      validation: oneOf(opts.validation, "validation", ["full", "quick"], "full"),
      cachePages: positiveInt(opts.cachePages, "cachePages", 8192),
      commit: oneOf(opts.commit, "commit", ["two-flush", "one-flush", "deferred"], "one-flush"),
      pollMs: msInRange(opts.pollMs, "pollMs", MAX_POLL_MS, DEFAULT_POLL_MS),
    },
    integers: oneOf(opts.integers, "integers", ["number", "bigint"], "number"),
    rows: oneOf(opts.rows, "rows", ["array", "object"], "array"),
    migrations,
    openTimeoutMs: positiveInt(opts.openTimeoutMs, "openTimeoutMs", 30_000),
  };
}
