/*
 * Types of the wasm-bindgen output (worker/src/lib.rs exports, built by
 * scripts/build-wasm into dist/wasm/tinyjoin_worker.js). Kept by hand so the
 * TypeScript compiles without a wasm build; scripts/build-wasm checks that
 * every name declared here is exported by the generated module.
 */
import type { SyncAccessHandle } from "../opfs.js";

/** Loads and instantiates the wasm module (found next to the JS module); resolves to its exports. */
export default function init(): Promise<{ readonly memory: WebAssembly.Memory }>;

/** The owner's engine and request loop (worker/src/owner.rs). */
export class Owner {
  private constructor();
  free(): void;
  /** Opens (creating if empty) the database in an OPFS file; throws `{ code, message }`. */
  static openOpfs(handle: SyncAccessHandle, temp: SyncAccessHandle | undefined, client: string, batchLimitBytes: number, validation: string, cachePages: number, commit: string): Owner;
  /** Opens an empty in-memory database; throws `{ code, message }`. */
  static openMemory(client: string, batchLimitBytes: number, cachePages: number): Owner;
  /** Commit records on (default) or off: off for an owner that cannot fail over. */
  recordCommits(on: boolean): void;
  /** The owner epoch (incremented in the database at each open). */
  readonly epoch: number;
  /** Makes deferred commits durable (one flush); throws `{ code, message }`. */
  sync(): void;
  /** Whether a deferred commit waits for `sync`. */
  needsSync(): boolean;
  /** Runs the open's warm-up statement (worker/src/warm_up.rs) as a direct call or a message; true when it answered rows. */
  warmUp(direct: boolean): boolean;
  /** Runs the next group of the write warm-up (worker/src/warm_up.rs, on a scratch database); true while groups remain. */
  warmUpWrites(): boolean;
  /** The READY announcement to broadcast. */
  ready(): Uint8Array;
  /** Handles one request message; returns a reply list (see owner-runtime.ts). */
  handle(bytes: Uint8Array): Uint8Array;
  /** The address of the direct calls' input buffer, at least `len` bytes (valid until it grows again). */
  inputBuffer(len: number): number;
  /** The size of the input buffer `inputBuffer` handed out. */
  inputCapacity(): number;
  /**
   * The in-worker API's direct call: request `kind` with its fields in the
   * input buffer (transaction id, or none when `txnLen` is -1; SQL;
   * parameters). Returns the address of the answer (u32 length, kind byte,
   * body), or 0 ("send it as a message").
   */
  directIn(kind: number, txnLen: number, sqlLen: number, stmt: number, paramsLen: number): number;
  /** Opens the file an import (reply route 3) was written and flushed into; throws `{ code, message }`. */
  stageImport(handle: SyncAccessHandle): void;
  /** The manifest names the staged file: swap it in; returns a reply list. */
  finishImport(): Uint8Array;
  /** The import failed; `poison` when the manifest switch failed. Returns a reply list. */
  abortImport(code: string, message: string, poison: boolean): Uint8Array;
  /** A client's lock was released: roll back its transaction; returns a reply list. */
  clientGone(client: string): Uint8Array;
}

/** Runs the Device contract checks on an empty OPFS file; returns the number passed, throws on failure. */
export function deviceContract(handle: SyncAccessHandle): number;
