/**
 * Opening the OPFS files of a database with sync access handles, retrying
 * while a previous Worker (a reloaded or closed tab's) still holds them; the
 * manifest that makes an import crash-safe.
 *
 * Crash-safe import: the live database file is never rewritten. An import
 * writes generation g+1 into a new file, flushes it, opens and checks it,
 * and only then writes the manifest naming g+1 (flushed): that write is the
 * switch. The old file is deleted afterwards. The manifest has two 16-byte
 * slots (magic "TJMF", generation u32 LE, CRC-32 of those 8 bytes u32 LE);
 * generation g is written into slot g mod 2, so a torn manifest write leaves
 * the other slot, naming the previous generation, intact. On open the
 * highest valid slot wins (no valid slot: generation 0, the original file),
 * and every other generation file of the database — an unfinished import
 * or an old file not yet deleted — is removed.
 *
 * The manifest handle is held for the owner's whole life: like the database
 * file's, it is exclusive, so two owners can never switch at once.
 *
 * Why retry: closing a tab does not synchronously close its Worker's handle;
 * for a moment `createSyncAccessHandle` fails with NoModificationAllowedError.
 * The retry is bounded (`HANDLE_WAIT_MS`), then fails with a clear error.
 * The types are declared here because TypeScript's DOM library (used for the
 * page-side code) does not include the Worker-only sync access handle.
 */

import { fileName, generationFileName, generationOf, manifestFileName, tempFileName } from "./names.js";
import { TinyJoinError } from "./errors.js";

/** The subset of `FileSystemSyncAccessHandle` TinyJoin uses (passed to wasm). */
export interface SyncAccessHandle {
  close(): void;
  flush(): void;
  getSize(): number;
  read(buffer: Uint8Array, options?: { at?: number }): number;
  write(buffer: Uint8Array, options?: { at?: number }): number;
  truncate(size: number): void;
}

interface FileHandleWithSync {
  createSyncAccessHandle(): Promise<SyncAccessHandle>;
}

function hasSyncHandle(h: unknown): h is FileHandleWithSync {
  return typeof h === "object" && h !== null && typeof (h as { createSyncAccessHandle?: unknown }).createSyncAccessHandle === "function";
}

/** How long to wait for a previous holder to release the file. */
export const HANDLE_WAIT_MS = 10_000;

/** The OPFS root, or STORAGE_UNAVAILABLE (private browsing, old browser, insecure context). */
export async function opfsRoot(): Promise<FileSystemDirectoryHandle> {
  if (typeof navigator === "undefined" || navigator.storage === undefined || typeof navigator.storage.getDirectory !== "function") {
    throw new TinyJoinError("STORAGE_UNAVAILABLE", "the origin private file system (OPFS) is not available in this context");
  }
  try {
    return await navigator.storage.getDirectory();
  } catch (e) {
    throw new TinyJoinError("STORAGE_UNAVAILABLE", `the origin private file system (OPFS) cannot be opened: ${String(e)}`);
  }
}

/** Opens database `name`'s file with a sync access handle, waiting (bounded) for a previous holder. */
export async function openSyncHandle(name: string, fileOverride?: string): Promise<SyncAccessHandle> {
  const root = await opfsRoot();
  const file = await root.getFileHandle(fileOverride ?? fileName(name), { create: true });
  if (!hasSyncHandle(file)) {
    throw new TinyJoinError("STORAGE_UNAVAILABLE", "this browser has no OPFS sync access handles (needed in a Worker)");
  }
  const deadline = Date.now() + HANDLE_WAIT_MS;
  let delay = 5;
  for (;;) {
    try {
      return await file.createSyncAccessHandle();
    } catch (e) {
      const name = e instanceof DOMException ? e.name : "";
      if (name !== "NoModificationAllowedError" && name !== "InvalidStateError") {
        throw new TinyJoinError("IO", `cannot open the database file: ${String(e)}`);
      }
      if (Date.now() + delay > deadline) {
        throw new TinyJoinError("IO", `the database file is still held by another context after ${HANDLE_WAIT_MS} ms (${name})`);
      }
      // Backoff: the previous holder releases when its Worker is torn down; nothing to await on.
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 200);
    }
  }
}

const MANIFEST_MAGIC = 0x464d4a54; // "TJMF" read as u32 LE
const SLOT = 16;

let crcTable: Uint32Array | null = null;

/** CRC-32 (IEEE), as the engine uses over a commit's page checksums. */
export function crc32(bytes: Uint8Array): number {
  if (crcTable === null) {
    crcTable = new Uint32Array(256);
    for (let i = 0; i < 256; i++) {
      let c = i;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[i] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const b of bytes) crc = crcTable[(crc ^ b) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** The current generation named by a manifest's bytes (0 when no slot is valid). */
export function manifestGeneration(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let best = 0;
  for (let at = 0; at + SLOT <= bytes.length && at < 2 * SLOT; at += SLOT) {
    if (view.getUint32(at, true) !== MANIFEST_MAGIC) continue;
    if (crc32(bytes.subarray(at, at + 8)) !== view.getUint32(at + 8, true)) continue;
    best = Math.max(best, view.getUint32(at + 4, true));
  }
  return best;
}

/** The slot bytes naming generation `g`, and where they go. */
export function manifestSlot(g: number): { at: number; bytes: Uint8Array } {
  const bytes = new Uint8Array(SLOT);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, MANIFEST_MAGIC, true);
  view.setUint32(4, g, true);
  view.setUint32(8, crc32(bytes.subarray(0, 8)), true);
  return { at: (g % 2) * SLOT, bytes };
}

/** Reads the current generation from an open manifest handle. */
export function readManifest(handle: SyncAccessHandle): number {
  const bytes = new Uint8Array(2 * SLOT);
  const n = handle.read(bytes, { at: 0 });
  return manifestGeneration(bytes.subarray(0, Math.max(0, n)));
}

/** Makes generation `g` current: one slot write, then flush. Throws what OPFS throws. */
export function writeManifest(handle: SyncAccessHandle, g: number): void {
  const { at, bytes } = manifestSlot(g);
  if (handle.write(bytes, { at }) !== bytes.length) throw new TinyJoinError("IO", "the manifest write was short");
  handle.flush();
}

/** Deletes a file of the OPFS root; a failure (already gone, still held) is ignored: the next open retries. */
export async function removeFile(file: string): Promise<void> {
  try {
    await (await opfsRoot()).removeEntry(file);
  } catch {
    // Best effort by design: a leftover file is removed at the next open.
  }
}

/** Removes every file of database `name` but generation `current` (unfinished imports, old files). */
export async function removeStrayGenerations(name: string, current: number): Promise<void> {
  const root = (await opfsRoot()) as FileSystemDirectoryHandle & { keys?: () => AsyncIterable<string> };
  if (typeof root.keys !== "function") return;
  const stray: string[] = [];
  try {
    for await (const file of root.keys()) {
      const g = generationOf(name, file);
      if (g !== null && g !== current) stray.push(file);
    }
  } catch {
    return;
  }
  for (const file of stray) await removeFile(file);
}

/** The open files of a database: its manifest, its current generation and its scratch file. */
export interface DatabaseFiles {
  readonly manifest: SyncAccessHandle;
  readonly db: SyncAccessHandle;
  readonly temp: SyncAccessHandle;
  readonly generation: number;
}

/**
 * Opens database `name`'s manifest, then the file it names; removes the
 * files of other generations (what a crash during an import left).
 */
export async function openDatabaseFiles(name: string): Promise<DatabaseFiles> {
  const manifest = await openSyncHandle(name, manifestFileName(name));
  try {
    const generation = readManifest(manifest);
    const db = await openSyncHandle(name, generationFileName(name, generation));
    let temp: SyncAccessHandle;
    try {
      temp = await openSyncHandle(name, tempFileName(name));
    } catch (e) {
      db.close();
      throw e;
    }
    await removeStrayGenerations(name, generation);
    return { manifest, db, temp, generation };
  } catch (e) {
    manifest.close();
    throw e;
  }
}
