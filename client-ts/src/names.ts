/**
 * Every Web Lock and BroadcastChannel name TinyJoin uses, built here and
 * nowhere else, so two tabs of one origin can never disagree on a name.
 *
 * - `electionLock(name)`: held by the owner client of database `name` for its
 *   whole life; every other client of that name waits on it (DESIGN.md,
 *   "Election").
 * - `clientLock(name, id)`: held by each client for its whole life; the owner
 *   requests it to learn when a follower's tab died, and followers request
 *   the owner's to learn when the owner died.
 * - `channelName(name)`: the BroadcastChannel followers and the owner Worker
 *   talk on.
 * - `fileName(name)`: the OPFS file of database `name` before any import
 *   (generation 0); `generationFileName(name, g)`: the file an import wrote
 *   (generation g >= 1); `manifestFileName(name)`: the manifest naming the
 *   current generation (opfs.ts). The suffixes differ from `.tinyjoin`, and
 *   generations are digits only, so no database's files match another's.
 */

const PREFIX = "tinyjoin:";

/** Database names are non-empty and short; they become file names. */
export const MAX_NAME_LEN = 128;

export function electionLock(name: string): string {
  return `${PREFIX}${name}`;
}

export function clientLock(name: string, clientId: string): string {
  return `${PREFIX}${name}:client:${clientId}`;
}

export function channelName(name: string): string {
  return `${PREFIX}${name}`;
}

/** The OPFS file name: the database name, percent-encoded so any name is a valid file name. */
export function fileName(name: string): string {
  return `${encodeURIComponent(name)}.tinyjoin`;
}

/** The OPFS file of generation `g` of database `name` (0: the original file). */
export function generationFileName(name: string, g: number): string {
  return g === 0 ? fileName(name) : `${encodeURIComponent(name)}.tinyjoin-${g}`;
}

/** The OPFS scratch file of database `name`: sorted runs of sorts that outgrow the batch limit (empty between statements). */
export function tempFileName(name: string): string {
  return `${encodeURIComponent(name)}.tinyjoin-temp`;
}

/** The OPFS manifest file of database `name`. */
export function manifestFileName(name: string): string {
  return `${encodeURIComponent(name)}.tinyjoin-manifest`;
}

/** The generation a file name is of for database `name`, or null if it is not one of its database files. */
export function generationOf(name: string, file: string): number | null {
  if (file === fileName(name)) return 0;
  const prefix = `${encodeURIComponent(name)}.tinyjoin-`;
  if (!file.startsWith(prefix)) return null;
  const digits = file.slice(prefix.length);
  return /^[1-9][0-9]{0,9}$/.test(digits) ? Number(digits) : null;
}

/** Whether `name` is a usable database name. */
export function validName(name: unknown): name is string {
  return typeof name === "string" && name.length > 0 && name.length <= MAX_NAME_LEN;
}
