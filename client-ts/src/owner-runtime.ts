/**
 * The owner's JavaScript side, shared by the owner Worker (owner-worker.ts)
 * and the in-worker API (worker.ts): loads the wasm, opens the file, feeds
 * request bytes to the Rust owner (worker/src/owner.rs) and routes its
 * replies.
 *
 * A reply list, as returned by `Owner.handle` / `Owner.clientGone`, is a
 * sequence of entries: route `u8`, length `u32` (little-endian), bytes.
 * Routes: 0 to this tab's client, 1 broadcast on the channel, 2 "watch this
 * client's lock" (the bytes are its id, UTF-8): the owner learns that a
 * follower died when its client lock is released; 3 "stage this import"
 * (the bytes are a validated database file): written to a new OPFS file,
 * flushed, opened by the owner, then made current by the manifest (opfs.ts,
 * "Crash-safe import"). Requests arriving meanwhile wait inside the owner.
 *
 * Test hook: a function at `globalThis.__tinyjoinImportFault`, if any, is
 * called with the name of each import step reached ("created", "partial",
 * "flushed", "staged", "switched", "cleaned"); the crash tests make it stop
 * the Worker there. Nothing else reads it.
 */

import init, { Owner } from "./wasm/tinyjoin_worker.js";
import { channelName, clientLock } from "./names.js";
import { openDatabaseFiles, removeFile, openSyncHandle, writeManifest } from "./opfs.js";
import { generationFileName } from "./names.js";
import type { SyncAccessHandle } from "./opfs.js";
import type { OwnerOptions } from "./platform.js";
import { TinyJoinError, isErrorCode } from "./errors.js";
import { RequestKind, ParamsEncoder } from "./protocol.js";
import type { Params, Request } from "./protocol.js";

export const ROUTE_LOCAL = 0;
export const ROUTE_CHANNEL = 1;
export const ROUTE_WATCH = 2;
export const ROUTE_IMPORT = 3;

/**
 * How long after a commit the owner syncs: flushes a deferred commit
 * (`commit: "deferred"`), and confirms the newest one-flush or deferred
 * commit so that damage to its pages is reported rather than read as a torn
 * commit (engine/FORMAT.md, "Commit protocol").
 */
const SYNC_MS = 100;

/** Bytes per write call when an import is written to its new file. */
const IMPORT_CHUNK = 1 << 20;

/** Calls the crash tests' hook, if one is installed, at an import step. */
function importStep(step: string): void {
  const hook = (globalThis as { __tinyjoinImportFault?: unknown }).__tinyjoinImportFault;
  if (typeof hook === "function") (hook as (step: string) => void)(step);
}

export interface OwnerRuntime {
  /** The owner's current epoch (it grows with each import). */
  readonly epoch: number;
  /** Handles request bytes from this tab's client. */
  request(bytes: Uint8Array): void;
  /**
   * The in-worker API's direct call (OwnerPort.direct): `req` answered at
   * once as the response's kind byte and body, or null when it must go as a
   * message (a kind without a direct form, an import in progress, a request
   * that would wait). The answer is a view of the module's memory, valid
   * until the next call into the owner. Throws INVALID_ARGUMENT for
   * parameters that cannot be encoded, WORKER_FAILED (after stopping the
   * owner) on a trap.
   */
  direct(req: Request): Uint8Array | null;
  /** Closes the database, the file handle and the channel. */
  stop(): void;
}

const utf8 = new TextDecoder();
const textEncoder = new TextEncoder();

/** An OPFS exception (quota) or a wasm error as a TinyJoinError. */
function opfsError(e: unknown): TinyJoinError {
  if (e instanceof DOMException && e.name === "QuotaExceededError") return new TinyJoinError("QUOTA_EXCEEDED", e.message);
  if (e instanceof DOMException) return new TinyJoinError("IO", `${e.name}: ${e.message}`);
  return wasmError(e);
}

/** Converts what the wasm throws (`{ code, message }`) or anything else into a TinyJoinError. */
export function wasmError(e: unknown): TinyJoinError {
  if (e instanceof TinyJoinError) return e;
  if (typeof e === "object" && e !== null) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === "string" && typeof message === "string") {
      return new TinyJoinError(isErrorCode(code) ? code : "IO", message);
    }
  }
  return new TinyJoinError("WORKER_FAILED", e instanceof Error ? `${e.name}: ${e.message}` : String(e));
}

/**
 * Starts an owner. `shared`: listen on the BroadcastChannel and watch
 * followers (the owner Worker); not shared: this client only (in-worker API,
 * memory databases).
 */
export async function startOwnerRuntime(
  name: string,
  clientId: string,
  options: OwnerOptions,
  shared: boolean,
  toClient: (bytes: Uint8Array) => void,
  onFatal: (err: TinyJoinError) => void,
): Promise<OwnerRuntime> {
  const wasmExports = await init();
  let handle: SyncAccessHandle | null = null;
  let manifest: SyncAccessHandle | null = null;
  let temp: SyncAccessHandle | null = null;
  let generation = 0;
  let owner: Owner;
  try {
    if (options.storage === "opfs") {
      const files = await openDatabaseFiles(name);
      manifest = files.manifest;
      handle = files.db;
      temp = files.temp;
      generation = files.generation;
      owner = Owner.openOpfs(handle, temp, clientId, options.batchLimitBytes, options.validation, options.cachePages, options.commit);
    } else {
      owner = Owner.openMemory(clientId, options.batchLimitBytes, options.cachePages);
    }
    // Compiles what every statement runs now, not in the first (warm_up.rs).
    owner.warmUp(!shared);
  } catch (e) {
    handle?.close();
    temp?.close();
    manifest?.close();
    throw wasmError(e);
  }
  // Only a shared owner can fail over, so only its commits need records
  // ("did X commit?"); the others' commits write just the user's changes.
  if (!shared) owner.recordCommits(false);
  /** The handle of an import being written, closed by `stop` too. */
  let staging: SyncAccessHandle | null = null;
  let channel: BroadcastChannel | null = null;
  const watched = new Set<string>();
  const watchAbort = new AbortController();
  let stopped = false;

  const dispatch = (list: Uint8Array): void => {
    // Read in place: a DataView would need `list.buffer`, which moves a
    // small array's bytes out of the JS heap first.
    let pos = 0;
    while (pos + 5 <= list.length) {
      const route = list[pos] as number;
      const len = ((list[pos + 1] as number) | ((list[pos + 2] as number) << 8) | ((list[pos + 3] as number) << 16) | ((list[pos + 4] as number) << 24)) >>> 0;
      const bytes = list.slice(pos + 5, pos + 5 + len);
      pos += 5 + len;
      if (route === ROUTE_LOCAL) toClient(bytes);
      else if (route === ROUTE_CHANNEL) channel?.postMessage(bytes);
      else if (route === ROUTE_WATCH) watch(utf8.decode(bytes));
      else if (route === ROUTE_IMPORT) void runImport(bytes);
    }
  };

  /**
   * Stages an import (route 3) in a new file and switches the manifest to
   * it; any failure before the switch aborts it (the old file stays, the
   * new one is deleted), a failed switch poisons the owner (the next open
   * finds whichever generation the manifest names, both complete).
   */
  const runImport = async (bytes: Uint8Array): Promise<void> => {
    const next = generation + 1;
    const file = generationFileName(name, next);
    try {
      if (manifest === null || handle === null) throw new TinyJoinError("MISUSE", "a file import reached an owner without files");
      staging = await openSyncHandle(name, file);
      if (stopped) throw new TinyJoinError("CLOSED", "the database closed during the import");
      staging.truncate(0);
      importStep("created");
      for (let at = 0; at < bytes.length; at += IMPORT_CHUNK) {
        const chunk = bytes.subarray(at, Math.min(bytes.length, at + IMPORT_CHUNK));
        if (staging.write(chunk, { at }) !== chunk.length) throw new TinyJoinError("IO", "a write of the imported file was short");
        if (at === 0) importStep("partial");
      }
      staging.flush();
      importStep("flushed");
      owner.stageImport(staging);
      importStep("staged");
    } catch (e) {
      staging?.close();
      staging = null;
      if (stopped) return;
      const err = opfsError(e);
      guarded(() => owner.abortImport(err.code, err.message, false));
      await removeFile(file);
      return;
    }
    try {
      writeManifest(manifest, next);
    } catch (e) {
      const err = opfsError(e);
      guarded(() => owner.abortImport(err.code, `the switch to the imported file failed: ${err.message}`, true));
      return;
    }
    importStep("switched");
    const old = handle;
    const oldFile = generationFileName(name, generation);
    handle = staging;
    staging = null;
    generation = next;
    guarded(() => owner.finishImport());
    old.close();
    await removeFile(oldFile);
    importStep("cleaned");
  };

  const watch = (id: string): void => {
    if (watched.has(id) || !shared) return;
    watched.add(id);
    void navigator.locks
      .request(clientLock(name, id), { signal: watchAbort.signal }, () => {
        watched.delete(id);
        guarded(() => owner.clientGone(id));
      })
      .catch(() => undefined);
  };

  /**
   * Deferred commits (`commit: "deferred"`) are flushed, and one-flush or
   * deferred commits confirmed, by a timer armed at the first commit that
   * needs it, so a power loss can lose at most about SYNC_MS of deferred
   * commits; and before the owner closes. A failed flush poisons the engine
   * like any failed write: the next request reports it.
   */
  const lazySync = options.commit !== "two-flush" && options.storage === "opfs";
  let syncTimer: ReturnType<typeof setTimeout> | null = null;
  const syncNow = (): void => {
    syncTimer = null;
    if (stopped) return;
    try {
      owner.sync();
    } catch {
      // Reported by the next request (the engine is poisoned).
    }
  };
  const armSync = (): void => {
    if (syncTimer === null && !stopped && owner.needsSync()) syncTimer = setTimeout(syncNow, SYNC_MS);
  };

  /**
   * The owner's epoch, read again after every call that may change it (an
   * import installs a new database in `handle` or `finishImport`); a
   * direct call never does, and the in-worker API checks the epoch on each
   * one, so it is kept here rather than asked of the wasm each time.
   */
  let epoch = owner.epoch;

  /**
   * What a throw from a call into the wasm is: a trap (a bug: the Rust side
   * answers bad input with typed errors), after which the instance cannot be
   * trusted. The owner stops and reports, so its client fails and releases
   * the election for another tab; the error is returned for a caller that
   * must throw it.
   */
  const trapped = (e: unknown): TinyJoinError => {
    const err = new TinyJoinError("WORKER_FAILED", `the owner's engine failed: ${wasmError(e).message}`);
    stop();
    onFatal(err);
    return err;
  };

  /** Runs one call into the wasm. Nothing throws out of an event listener. */
  const guarded = (f: () => Uint8Array): void => {
    if (stopped) return;
    let list: Uint8Array;
    try {
      list = f();
      epoch = owner.epoch;
      if (lazySync) armSync();
    } catch (e) {
      trapped(e);
      return;
    }
    dispatch(list);
  };

  const stop = (): void => {
    if (stopped) return;
    if (syncTimer !== null) clearTimeout(syncTimer);
    if (lazySync) syncNow();
    stopped = true;
    watchAbort.abort();
    channel?.close();
    try {
      owner.free();
    } finally {
      handle?.close();
      temp?.close();
      staging?.close();
      manifest?.close();
    }
  };

  if (shared) {
    channel = new BroadcastChannel(channelName(name));
    channel.onmessage = (ev: MessageEvent<unknown>) => {
      // Anything but bytes has no envelope to answer: it is dropped, and the owner keeps serving.
      if (ev.data instanceof Uint8Array) {
        const bytes = ev.data;
        guarded(() => owner.handle(bytes));
      }
    };
    channel.postMessage(owner.ready());
  }

  const paramsEncoder = new ParamsEncoder();
  const noParams: Params = { tag: "none" };
  /** Encodes `p` into `paramsEncoder`; returns its length. */
  const params = (p: Params): number => {
    try {
      return paramsEncoder.encode(p);
    } catch (e) {
      throw new TinyJoinError("INVALID_ARGUMENT", `the request cannot be encoded: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  // Direct calls write their fields into the owner's input buffer in wasm
  // memory and read the answer from its output buffer (worker/src/direct.rs):
  // one call into the module per request. The input buffer's address holds
  // until `inputBuffer` grows it; the memory's ArrayBuffer changes whenever
  // the memory grows (detaching the old one: its views have length 0), so
  // the view is made again then.
  let memView = new Uint8Array(0);
  const memory = (): Uint8Array => {
    if (memView.length === 0) memView = new Uint8Array(wasmExports.memory.buffer);
    return memView;
  };
  let inputAt = 0;
  let inputCap = 0;
  /** Writes `s` at `at` as UTF-8 (3 bytes per UTF-16 unit are free there); returns the bytes written. */
  const putText = (m: Uint8Array, at: number, s: string): number => {
    let i = 0;
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      m[at + i] = c;
    }
    if (i === s.length) return i;
    return i + textEncoder.encodeInto(s.slice(i), m.subarray(at + i, at + s.length * 3)).written;
  };

  const direct = (req: Request): Uint8Array | null => {
    if (stopped) return null;
    let kind: number;
    let txn: string | undefined;
    let sql = "";
    let stmt = 0;
    let p: Params = noParams;
    // Plain assignments: destructuring an array literal goes through the
    // iterator protocol until the function is optimized, and this runs
    // once per request, mostly cold.
    switch (req.kind) {
      case "exec":
        kind = RequestKind.Exec;
        txn = req.txn ?? undefined;
        sql = req.sql;
        break;
      case "query":
        kind = RequestKind.Query;
        txn = req.txn ?? undefined;
        sql = req.sql;
        p = req.params;
        break;
      case "prepare":
        kind = RequestKind.Prepare;
        sql = req.sql;
        break;
      case "run":
        kind = RequestKind.Run;
        txn = req.txn ?? undefined;
        stmt = req.stmt;
        p = req.params;
        break;
      case "finalize":
        kind = RequestKind.Finalize;
        stmt = req.stmt;
        break;
      case "begin":
        kind = RequestKind.Begin;
        txn = req.txn;
        break;
      case "commit":
        kind = RequestKind.Commit;
        txn = req.txn;
        break;
      case "rollback":
        kind = RequestKind.Rollback;
        txn = req.txn;
        break;
      default:
        return null;
    }
    const pLen = params(p);
    try {
      const need = (txn === undefined ? 0 : txn.length * 3) + sql.length * 3 + pLen;
      if (need > inputCap) {
        inputAt = owner.inputBuffer(need);
        inputCap = owner.inputCapacity();
      }
      let m = memory();
      let at = inputAt;
      const txnLen = txn === undefined ? -1 : putText(m, at, txn);
      at += Math.max(txnLen, 0);
      const sqlLen = putText(m, at, sql);
      paramsEncoder.copyTo(m, at + sqlLen);
      const out = owner.directIn(kind, txnLen, sqlLen, stmt, pLen);
      if (lazySync) armSync();
      // After a long request, ask for the buffer again next time: the owner
      // gives a long one back then (worker/src/direct.rs, KEEP_INPUT).
      if (need > 1 << 16) inputCap = 0;
      if (out === 0) return null;
      m = memory();
      const len = ((m[out] as number) | ((m[out + 1] as number) << 8) | ((m[out + 2] as number) << 16) | ((m[out + 3] as number) << 24)) >>> 0;
      // A view, not a copy: the caller decodes it before the next call into
      // the module (OwnerPort.direct).
      return m.subarray(out + 4, out + 4 + len);
    } catch (e) {
      throw trapped(e);
    }
  };

  /**
   * The write warm-up (worker/src/warm_up.rs, WriteWarmUp): a group of
   * write statements on a scratch database per timer, once the open has
   * answered, so that the first transaction that writes does not compile
   * the write paths. A request that arrives meanwhile waits for one group.
   */
  const warmWrites = (): void => {
    if (stopped) return;
    let more: boolean;
    try {
      more = owner.warmUpWrites();
    } catch (e) {
      trapped(e);
      return;
    }
    if (more) setTimeout(warmWrites, 0);
  };
  setTimeout(warmWrites, 0);

  return {
    get epoch(): number {
      return epoch;
    },
    request(bytes: Uint8Array): void {
      guarded(() => owner.handle(bytes));
    },
    direct,
    stop,
  };
}
