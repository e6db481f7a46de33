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
 * - `fileName(name)`: the OPFS file of database `name`.
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

/** Whether `name` is a usable database name. */
export function validName(name: unknown): name is string {
  return typeof name === "string" && name.length > 0 && name.length <= MAX_NAME_LEN;
}
