/**
 * `TinyJoinError`, the one error type the package throws, and its stable
 * codes. Engine codes (SQL_SYNTAX, CONSTRAINT_UNIQUE, CORRUPT, ...) arrive from
 * the owner unchanged over the wire; the client adds its own (OWNER_LOST,
 * STORAGE_UNAVAILABLE, ...). Callers decide by `code`, never by message.
 */

/** Codes the engine and the owner produce (mirrors `Error::code` in engine/src/error.rs). */
export const ENGINE_CODES = [
  "CORRUPT",
  "IO",
  "QUOTA_EXCEEDED",
  "BATCH_LIMIT_EXCEEDED",
  "TOO_LARGE",
  "SQL_SYNTAX",
  "SQL_ERROR",
  "CONSTRAINT_UNIQUE",
  "CONSTRAINT_PRIMARY_KEY",
  "CONSTRAINT_NOT_NULL",
  "CONSTRAINT_CHECK",
  "CONSTRAINT_FOREIGN_KEY",
  "CONSTRAINT_DATATYPE",
  "CONSTRAINT_TRIGGER",
  "READ_ONLY",
  "BUSY",
  "CLOSED",
  "MISUSE",
] as const;

/** Codes of the wire protocol (worker/PROTOCOL.md, "Error codes"). */
export const PROTOCOL_CODES = ["MALFORMED_MESSAGE", "PROTOCOL_VERSION", "STALE_EPOCH"] as const;

/** Codes the client itself produces. */
export const CLIENT_CODES = [
  "OWNER_LOST",
  "STORAGE_UNAVAILABLE",
  "OPEN_TIMEOUT",
  "INVALID_ARGUMENT",
  "WORKER_FAILED",
] as const;

export type ErrorCode =
  | (typeof ENGINE_CODES)[number]
  | (typeof PROTOCOL_CODES)[number]
  | (typeof CLIENT_CODES)[number];

const KNOWN: ReadonlySet<string> = new Set<string>([...ENGINE_CODES, ...PROTOCOL_CODES, ...CLIENT_CODES]);

/** Whether `code` is one of the stable codes. */
export function isErrorCode(code: string): code is ErrorCode {
  return KNOWN.has(code);
}

/** Every failure TinyJoin reports. */
export class TinyJoinError extends Error {
  /** Stable code; see the lists above. */
  readonly code: ErrorCode;
  /** For SQL errors, the byte offset in the statement where the error was found. */
  readonly position: number | undefined;
  /** True when retrying the same call may succeed (OWNER_LOST, BUSY). */
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, position?: number) {
    super(message);
    this.name = "TinyJoinError";
    this.code = code;
    this.position = position;
    this.retryable = code === "OWNER_LOST" || code === "BUSY";
  }
}

/** Builds an error from a wire `{ code, message, position }`; an unknown code becomes IO, keeping the text. */
export function fromWire(code: string, message: string, position: number | undefined): TinyJoinError {
  if (isErrorCode(code)) return new TinyJoinError(code, message, position);
  return new TinyJoinError("IO", `${code}: ${message}`, position);
}
