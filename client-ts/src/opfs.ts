/**
 * Opening the OPFS file of a database with a sync access handle, retrying
 * while a previous Worker (a reloaded or closed tab's) still holds it.
 *
 * Why retry: closing a tab does not synchronously close its Worker's handle;
 * for a moment `createSyncAccessHandle` fails with NoModificationAllowedError.
 * The retry is bounded (`HANDLE_WAIT_MS`), then fails with a clear error.
 * The types are declared here because TypeScript's DOM library (used for the
 * page-side code) does not include the Worker-only sync access handle.
 */

import { fileName } from "./names.js";
import { TinyJoinError } from "./errors.js";

/** The subset of `FileSystemSyncAccessHandle` TinyJoin uses (passed to wasm). */
export interface SyncAccessHandle {
  close(): void;
  flush(): void;
  getSize(): number;
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
