/**
 * The TypeScript mirror of the wire protocol (spec: worker/PROTOCOL.md; Rust
 * mirror: worker/src/protocol/). Clients encode requests and decode
 * responses; the fake owner of the Node tests does the reverse, so both
 * directions live here. `test/protocol.test.mjs` checks this file against the
 * spec's tables and against the golden vectors the Rust tests also check.
 *
 * Every decode is defensive: lengths and counts are checked against the bytes
 * that remain before anything is allocated, unknown tags are refused, and the
 * result is a typed `ProtocolError`, never an exception from a DataView.
 */

export const MAGIC = 0x54;
export const PROTOCOL_VERSION = 1;
export const MAX_MESSAGE_LEN = 256 * 1024 * 1024;
export const MAX_ID_LEN = 64;

/** Request kinds (client → owner). */
export const RequestKind = {
  Open: 0x01,
  Exec: 0x02,
  Query: 0x03,
  Prepare: 0x04,
  Run: 0x05,
  Finalize: 0x06,
  Batch: 0x07,
  Begin: 0x08,
  Commit: 0x09,
  Rollback: 0x0a,
  TxnStatus: 0x0b,
  Export: 0x0c,
  Close: 0x0d,
  Import: 0x0e,
  Check: 0x0f,
  Sync: 0x10,
} as const;

/** Response kinds (owner → client). */
export const ResponseKind = {
  Ready: 0x40,
  Opened: 0x41,
  Done: 0x42,
  Rows: 0x43,
  Prepared: 0x44,
  BatchDone: 0x45,
  TxnState: 0x46,
  Bytes: 0x47,
  Failed: 0x48,
  Checked: 0x49,
} as const;

export const ValueTag = { Null: 0, Integer: 1, Real: 2, Text: 3, Blob: 4 } as const;
export const ParamsTag = { None: 0, Positional: 1, Named: 2 } as const;

/** A SQL value in JavaScript. INTEGER is a number, or a bigint beyond 2^53 (or always, by option). */
export type SqlValue = null | number | bigint | string | Uint8Array;

export type Params =
  | { readonly tag: "none" }
  | { readonly tag: "positional"; readonly values: readonly SqlValue[] }
  | { readonly tag: "named"; readonly values: ReadonlyArray<readonly [string, SqlValue]> };

export interface Envelope {
  readonly epoch: number;
  readonly client: string;
  readonly request: number;
}

export interface BatchItem {
  readonly sql: string;
  readonly params: Params;
}

export type Request =
  | { readonly kind: "open" }
  | { readonly kind: "exec"; readonly txn: string | null; readonly sql: string }
  | { readonly kind: "query"; readonly txn: string | null; readonly sql: string; readonly params: Params }
  | { readonly kind: "prepare"; readonly sql: string }
  | { readonly kind: "run"; readonly txn: string | null; readonly stmt: number; readonly params: Params }
  | { readonly kind: "finalize"; readonly stmt: number }
  | { readonly kind: "batch"; readonly txn: string; readonly items: readonly BatchItem[] }
  | { readonly kind: "begin"; readonly txn: string }
  | { readonly kind: "commit"; readonly txn: string }
  | { readonly kind: "rollback"; readonly txn: string }
  | { readonly kind: "txnStatus"; readonly txn: string }
  | { readonly kind: "export" }
  | { readonly kind: "close" }
  | { readonly kind: "import"; readonly bytes: Uint8Array }
  | { readonly kind: "check" }
  | { readonly kind: "sync" };

export type RequestKindName = Request["kind"];

export interface ResultSet {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly SqlValue[])[];
  readonly changes: number;
  readonly lastInsertRowid: number | bigint;
}

export interface WireError {
  readonly code: string;
  readonly message: string;
  readonly position: number | undefined;
}

/** One problem found by `check()`: the page at fault (0 when none) and what is wrong. */
export interface CheckProblem {
  readonly page: number;
  readonly detail: string;
}

/** The answer to `check()`: no problems means the file is sound. */
export interface CheckSummary {
  readonly problems: readonly CheckProblem[];
  readonly pages: number;
  readonly trees: number;
  readonly entries: number;
  readonly freePages: number;
}

export type Response =
  | { readonly kind: "ready"; readonly owner: string }
  | { readonly kind: "opened"; readonly owner: string }
  | { readonly kind: "done" }
  | { readonly kind: "rows"; readonly result: ResultSet }
  | { readonly kind: "prepared"; readonly stmt: number; readonly paramCount: number; readonly columns: readonly string[] }
  | { readonly kind: "batchDone"; readonly results: readonly ResultSet[] }
  | { readonly kind: "txnState"; readonly committed: boolean }
  | { readonly kind: "bytes"; readonly bytes: Uint8Array }
  | { readonly kind: "failed"; readonly error: WireError }
  | { readonly kind: "checked"; readonly summary: CheckSummary };

/** A message that could not be decoded; `envelope` is set when the header was readable. */
export class ProtocolError extends Error {
  readonly code: "MALFORMED_MESSAGE" | "PROTOCOL_VERSION";
  readonly envelope: Envelope | undefined;
  constructor(code: "MALFORMED_MESSAGE" | "PROTOCOL_VERSION", message: string, envelope?: Envelope) {
    super(message);
    this.name = "ProtocolError";
    this.code = code;
    this.envelope = envelope;
  }
}

/** How INTEGER values decode: number when safe and bigint beyond 2^53, or always bigint. */
export type IntegerMode = "number" | "bigint";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });
const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;

/** 2^32, to split and join 64-bit integers without BigInt. */
const TWO_32 = 4294967296;

/** Short strings are encoded in JS when they are ASCII: a call into TextEncoder costs more than the loop. */
const SHORT_STRING = 64;
/**
 * Tiny ASCII strings are decoded in JS, one character at a time; past this
 * length TextDecoder is faster. Measured in a Chromium 156 Worker (20,000
 * calls, after a warm-up): TextDecoder 0.2-0.5 µs at any length up to 64,
 * the loop 0.09-0.2 µs at 8 characters, 0.12-0.3 at 20 and 0.2-0.5 at 42
 * (node 20's TextDecoder is cheaper, 0.10 µs, so the crossover there is
 * about 12).
 */
const TINY_STRING = 24;

/** Longest message `Writer.copyTo` copies in a loop. */
const COPY_LOOP_MAX = 256;

class Writer {
  private buf: Uint8Array = new Uint8Array(256);
  private view: DataView = new DataView(this.buf.buffer);
  private pos = 0;

  /** Starts a new message (in a new buffer if this one grew past `keep` bytes). */
  reset(keep = Infinity): void {
    this.pos = 0;
    if (this.buf.length > keep) {
      this.buf = new Uint8Array(256);
      this.view = new DataView(this.buf.buffer);
    }
  }

  private reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u8(v: number): void {
    this.reserve(1);
    this.view.setUint8(this.pos, v);
    this.pos += 1;
  }
  u32(v: number): void {
    this.reserve(4);
    this.view.setUint32(this.pos, v, true);
    this.pos += 4;
  }
  u64(v: number): void {
    this.reserve(8);
    this.view.setBigUint64(this.pos, BigInt(v), true);
    this.pos += 8;
  }
  i64(v: bigint): void {
    this.reserve(8);
    this.view.setBigInt64(this.pos, v, true);
    this.pos += 8;
  }
  f64(v: number): void {
    this.reserve(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }
  raw(b: Uint8Array): void {
    this.reserve(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  bytes(b: Uint8Array): void {
    this.u32(b.length);
    this.raw(b);
  }
  /** Writes `s` at `at` if it is ASCII (`reserve` made room); returns whether it was. */
  private ascii(s: string, at: number): boolean {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) return false;
      this.buf[at + i] = c;
    }
    return true;
  }
  str(s: string): void {
    if (s.length <= SHORT_STRING) {
      this.reserve(4 + s.length);
      if (this.ascii(s, this.pos + 4)) {
        this.view.setUint32(this.pos, s.length, true);
        this.pos += 4 + s.length;
        return;
      }
    }
    // encodeInto avoids a temporary array; a UTF-8 string is at most 3 bytes per UTF-16 unit.
    this.reserve(4 + s.length * 3);
    const { written } = encoder.encodeInto(s, this.buf.subarray(this.pos + 4));
    this.view.setUint32(this.pos, written, true);
    this.pos += 4 + written;
  }
  shortStr(s: string, what: string): void {
    this.reserve(1 + s.length);
    if (s.length <= MAX_ID_LEN && this.ascii(s, this.pos + 1)) {
      this.buf[this.pos] = s.length;
      this.pos += 1 + s.length;
      return;
    }
    const b = encoder.encode(s);
    if (b.length > MAX_ID_LEN) throw new RangeError(`${what} is ${b.length} bytes long, over ${MAX_ID_LEN}`);
    this.u8(b.length);
    this.raw(b);
  }
  optShortStr(s: string | null, what: string): void {
    if (s === null) {
      this.u8(0);
    } else {
      this.u8(1);
      this.shortStr(s, what);
    }
  }
  value(v: SqlValue): void {
    if (v === null) {
      this.u8(ValueTag.Null);
    } else if (typeof v === "number") {
      if (Number.isSafeInteger(v) && !Object.is(v, -0)) {
        this.u8(ValueTag.Integer);
        // Two's complement in two halves: exact for every safe integer.
        const hi = Math.floor(v / TWO_32);
        this.reserve(8);
        this.view.setUint32(this.pos, v - hi * TWO_32, true);
        this.view.setInt32(this.pos + 4, hi, true);
        this.pos += 8;
      } else {
        this.u8(ValueTag.Real);
        this.f64(v);
      }
    } else if (typeof v === "bigint") {
      if (v < I64_MIN || v > I64_MAX) throw new RangeError(`integer ${v} does not fit in 64 bits`);
      this.u8(ValueTag.Integer);
      this.i64(v);
    } else if (typeof v === "string") {
      this.u8(ValueTag.Text);
      this.str(v);
    } else {
      this.u8(ValueTag.Blob);
      this.bytes(v);
    }
  }
  params(p: Params): void {
    switch (p.tag) {
      case "none":
        this.u8(ParamsTag.None);
        break;
      case "positional":
        this.u8(ParamsTag.Positional);
        this.u32(p.values.length);
        for (const v of p.values) this.value(v);
        break;
      case "named":
        this.u8(ParamsTag.Named);
        this.u32(p.values.length);
        for (const [name, v] of p.values) {
          this.str(name);
          this.value(v);
        }
        break;
    }
  }
  columns(cols: readonly string[]): void {
    this.u32(cols.length);
    for (const c of cols) this.str(c);
  }
  resultSet(rs: ResultSet): void {
    this.columns(rs.columns);
    this.u32(rs.rows.length);
    for (const row of rs.rows) for (const v of row) this.value(v);
    this.u64(rs.changes);
    this.i64(BigInt(rs.lastInsertRowid));
  }
  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
  /** Bytes written so far. */
  get length(): number {
    return this.pos;
  }
  /** Copies the bytes so far into `m` at `at` (short ones in a loop: no view to allocate). */
  copyTo(m: Uint8Array, at: number): void {
    const n = this.pos;
    if (n > COPY_LOOP_MAX) {
      m.set(this.buf.subarray(0, n), at);
      return;
    }
    const b = this.buf;
    for (let i = 0; i < n; i++) m[at + i] = b[i] as number;
  }
}

function header(w: Writer, kind: number, env: Envelope): void {
  w.u8(MAGIC);
  w.u8(PROTOCOL_VERSION);
  w.u8(kind);
  w.u32(env.epoch);
  w.shortStr(env.client, "client id");
  w.u32(env.request);
}

/** `encodeRequest`'s buffer (`finish` copies out of it). */
const requestWriter = new Writer();
const REQUEST_WRITER_KEEP = 64 * 1024;

/** Encodes a request. Throws RangeError for ids or integers out of range (checked by callers first). */
export function encodeRequest(env: Envelope, req: Request): Uint8Array {
  const w = requestWriter;
  w.reset(REQUEST_WRITER_KEEP);
  switch (req.kind) {
    case "open":
      header(w, RequestKind.Open, env);
      break;
    case "exec":
      header(w, RequestKind.Exec, env);
      w.optShortStr(req.txn, "transaction id");
      w.str(req.sql);
      break;
    case "query":
      header(w, RequestKind.Query, env);
      w.optShortStr(req.txn, "transaction id");
      w.str(req.sql);
      w.params(req.params);
      break;
    case "prepare":
      header(w, RequestKind.Prepare, env);
      w.str(req.sql);
      break;
    case "run":
      header(w, RequestKind.Run, env);
      w.optShortStr(req.txn, "transaction id");
      w.u32(req.stmt);
      w.params(req.params);
      break;
    case "finalize":
      header(w, RequestKind.Finalize, env);
      w.u32(req.stmt);
      break;
    case "batch":
      header(w, RequestKind.Batch, env);
      w.shortStr(req.txn, "transaction id");
      w.u32(req.items.length);
      for (const item of req.items) {
        w.str(item.sql);
        w.params(item.params);
      }
      break;
    case "begin":
    case "commit":
    case "rollback":
    case "txnStatus": {
      const k = { begin: RequestKind.Begin, commit: RequestKind.Commit, rollback: RequestKind.Rollback, txnStatus: RequestKind.TxnStatus }[req.kind];
      header(w, k, env);
      w.shortStr(req.txn, "transaction id");
      break;
    }
    case "export":
      header(w, RequestKind.Export, env);
      break;
    case "close":
      header(w, RequestKind.Close, env);
      break;
    case "import":
      header(w, RequestKind.Import, env);
      w.bytes(req.bytes);
      break;
    case "check":
      header(w, RequestKind.Check, env);
      break;
    case "sync":
      header(w, RequestKind.Sync, env);
      break;
  }
  return w.finish();
}

/** Encodes a response (the fake owner of the Node tests; the real owner is Rust). */
export function encodeResponse(env: Envelope, resp: Response): Uint8Array {
  const w = new Writer();
  switch (resp.kind) {
    case "ready":
    case "opened":
      header(w, resp.kind === "ready" ? ResponseKind.Ready : ResponseKind.Opened, env);
      w.shortStr(resp.owner, "owner id");
      break;
    case "done":
      header(w, ResponseKind.Done, env);
      break;
    case "rows":
      header(w, ResponseKind.Rows, env);
      w.resultSet(resp.result);
      break;
    case "prepared":
      header(w, ResponseKind.Prepared, env);
      w.u32(resp.stmt);
      w.u32(resp.paramCount);
      w.columns(resp.columns);
      break;
    case "batchDone":
      header(w, ResponseKind.BatchDone, env);
      w.u32(resp.results.length);
      for (const rs of resp.results) w.resultSet(rs);
      break;
    case "txnState":
      header(w, ResponseKind.TxnState, env);
      w.u8(resp.committed ? 1 : 0);
      break;
    case "bytes":
      header(w, ResponseKind.Bytes, env);
      w.bytes(resp.bytes);
      break;
    case "failed":
      header(w, ResponseKind.Failed, env);
      w.str(resp.error.code);
      w.str(resp.error.message);
      if (resp.error.position === undefined) {
        w.u8(0);
      } else {
        w.u8(1);
        w.u32(resp.error.position);
      }
      break;
    case "checked": {
      const c = resp.summary;
      header(w, ResponseKind.Checked, env);
      w.u32(c.problems.length);
      for (const p of c.problems) {
        w.u64(p.page);
        w.str(p.detail);
      }
      for (const n of [c.pages, c.trees, c.entries, c.freePages]) w.u64(n);
      break;
    }
  }
  return w.finish();
}

/** Thrown inside the reader; converted to ProtocolError at the decode boundary. */
class Malformed extends Error {}

/** `b[start..end]` as a string when every byte is ASCII (callers keep it under TINY_STRING), else null. */
function tinyAscii(b: Uint8Array, start: number, end: number): string | null {
  let s = "";
  for (let i = start; i < end; i++) {
    const c = b[i] as number;
    if (c >= 0x80) return null;
    s += String.fromCharCode(c);
  }
  return s;
}

/** A REAL's 8 bytes land here to be read back as a double. */
const F64 = new Float64Array(1);
const F64_BYTES = new Uint8Array(F64.buffer);
/** Typed arrays use the platform's byte order; the wire is little-endian. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Reads multi-byte numbers from the bytes themselves, never through a
 * DataView: `buf.buffer` of a small typed array (which the engine keeps
 * inside the JS heap) makes V8 move its bytes out to a new ArrayBuffer,
 * which cost more than decoding a whole one-row response.
 */
class Reader {
  pos = 0;
  constructor(private readonly buf: Uint8Array, private readonly ints: IntegerMode) {}
  remaining(): number {
    return this.buf.length - this.pos;
  }
  private need(n: number): void {
    if (n > this.remaining()) {
      throw new Malformed(`message ends at byte ${this.buf.length} but ${n} more bytes were expected at byte ${this.pos}`);
    }
  }
  /** The little-endian u32 at `p` (checked by the caller). */
  private le32(p: number): number {
    const b = this.buf;
    return ((b[p] as number) | ((b[p + 1] as number) << 8) | ((b[p + 2] as number) << 16) | ((b[p + 3] as number) << 24)) >>> 0;
  }
  u8(): number {
    this.need(1);
    return this.buf[this.pos++] as number;
  }
  u32(): number {
    this.need(4);
    const v = this.le32(this.pos);
    this.pos += 4;
    return v;
  }
  u64(): number {
    this.need(8);
    // One rounding, as Number(bigint) rounds: the high half times 2^32 is exact.
    const v = this.le32(this.pos + 4) * TWO_32 + this.le32(this.pos);
    this.pos += 8;
    return v;
  }
  i64(): bigint {
    this.need(8);
    const v = BigInt.asIntN(64, (BigInt(this.le32(this.pos + 4)) << 32n) | BigInt(this.le32(this.pos)));
    this.pos += 8;
    return v;
  }
  integer(): number | bigint {
    if (this.ints === "number") {
      this.need(8);
      // Exact whenever the result is a safe integer (a true value past
      // 2^53 - 1 cannot round back into the safe range); else BigInt.
      const n = (this.le32(this.pos + 4) | 0) * TWO_32 + this.le32(this.pos);
      if (Number.isSafeInteger(n)) {
        this.pos += 8;
        return n;
      }
    }
    const v = this.i64();
    if (this.ints === "bigint") return v;
    return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
  }
  f64(): number {
    this.need(8);
    const p = this.pos;
    this.pos += 8;
    if (LITTLE_ENDIAN) {
      F64_BYTES.set(this.buf.subarray(p, p + 8));
      return F64[0] as number;
    }
    return new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength).getFloat64(p, true);
  }
  take(n: number): Uint8Array {
    this.need(n);
    const s = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
  count(minItem: number, what: string): number {
    const n = this.u32();
    if (n * minItem > this.remaining()) throw new Malformed(`${what} count ${n} is larger than the message can hold`);
    return n;
  }
  bytes(): Uint8Array {
    return this.take(this.u32());
  }
  utf8(b: Uint8Array, what: string): string {
    const tiny = b.length <= TINY_STRING ? tinyAscii(b, 0, b.length) : null;
    if (tiny !== null) return tiny;
    try {
      return decoder.decode(b);
    } catch {
      throw new Malformed(`${what} is not valid UTF-8`);
    }
  }
  str(what: string): string {
    const n = this.u32();
    this.need(n);
    // A tiny ASCII string straight from the message, without a subarray.
    const tiny = n <= TINY_STRING ? tinyAscii(this.buf, this.pos, this.pos + n) : null;
    if (tiny !== null) {
      this.pos += n;
      return tiny;
    }
    return this.utf8(this.take(n), what);
  }
  id(what: string): string {
    const n = this.u8();
    if (n > MAX_ID_LEN) throw new Malformed(`${what} is ${n} bytes long, over the limit of ${MAX_ID_LEN}`);
    const s = this.utf8(this.take(n), what);
    if (s.length === 0) throw new Malformed(`${what} is empty`);
    return s;
  }
  optId(what: string): string | null {
    const flag = this.u8();
    if (flag === 0) return null;
    if (flag === 1) return this.id(what);
    throw new Malformed(`${what}: presence flag ${flag} is neither 0 nor 1`);
  }
  value(): SqlValue {
    const tag = this.u8();
    switch (tag) {
      case ValueTag.Null:
        return null;
      case ValueTag.Integer:
        return this.integer();
      case ValueTag.Real:
        return this.f64();
      case ValueTag.Text:
        return this.str("text value");
      case ValueTag.Blob:
        return this.bytes().slice();
      default:
        throw new Malformed(`unknown value tag ${tag} at byte ${this.pos - 1}`);
    }
  }
  params(): Params {
    const tag = this.u8();
    switch (tag) {
      case ParamsTag.None:
        return { tag: "none" };
      case ParamsTag.Positional: {
        const n = this.count(1, "parameter");
        const values: SqlValue[] = [];
        for (let i = 0; i < n; i++) values.push(this.value());
        return { tag: "positional", values };
      }
      case ParamsTag.Named: {
        const n = this.count(5, "named parameter");
        const values: Array<readonly [string, SqlValue]> = [];
        for (let i = 0; i < n; i++) values.push([this.str("parameter name"), this.value()]);
        return { tag: "named", values };
      }
      default:
        throw new Malformed(`unknown parameter list tag ${tag}`);
    }
  }
  columns(): string[] {
    const n = this.count(4, "column");
    const cols: string[] = [];
    for (let i = 0; i < n; i++) cols.push(this.str("column name"));
    return cols;
  }
  resultSet(): ResultSet {
    const columns = this.columns();
    const nrows = this.count(columns.length, "row");
    if (columns.length === 0 && nrows > 0) throw new Malformed(`${nrows} rows of zero columns`);
    const rows: SqlValue[][] = [];
    for (let r = 0; r < nrows; r++) {
      const row: SqlValue[] = new Array<SqlValue>(columns.length);
      for (let c = 0; c < columns.length; c++) row[c] = this.value();
      rows.push(row);
    }
    const changes = this.u64();
    const lastInsertRowid = this.integer();
    return { columns, rows, changes, lastInsertRowid };
  }
  end(): void {
    if (this.remaining() !== 0) throw new Malformed(`${this.remaining()} unexpected bytes after the end of the message`);
  }
}

function readEnvelope(bytes: Uint8Array, ints: IntegerMode): { env: Envelope; kind: number; r: Reader } {
  if (bytes.length > MAX_MESSAGE_LEN) {
    throw new ProtocolError("MALFORMED_MESSAGE", `message of ${bytes.length} bytes exceeds the limit of ${MAX_MESSAGE_LEN}`);
  }
  const r = new Reader(bytes, ints);
  let magic: number, version: number, kind: number, env: Envelope;
  try {
    magic = r.u8();
    version = r.u8();
    kind = r.u8();
    const epoch = r.u32();
    const n = r.u8();
    if (n > MAX_ID_LEN) throw new Malformed(`client id is ${n} bytes long, over the limit of ${MAX_ID_LEN}`);
    const client = r.utf8(r.take(n), "client id");
    env = { epoch, client, request: r.u32() };
  } catch (e) {
    throw new ProtocolError("MALFORMED_MESSAGE", `unreadable envelope: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (magic !== MAGIC) throw new ProtocolError("MALFORMED_MESSAGE", `bad magic byte ${magic}`);
  if (version !== PROTOCOL_VERSION) {
    throw new ProtocolError("PROTOCOL_VERSION", `message has protocol version ${version}, this client speaks ${PROTOCOL_VERSION}`, env);
  }
  return { env, kind, r };
}

function decodeBody<T>(env: Envelope, body: () => T): T {
  try {
    return body();
  } catch (e) {
    if (e instanceof Malformed) throw new ProtocolError("MALFORMED_MESSAGE", e.message, env);
    throw e;
  }
}

/** Reads only the envelope and kind of a message (to route it before a full decode). */
export function peekEnvelope(bytes: Uint8Array): { envelope: Envelope; kind: number } {
  const { env, kind } = readEnvelope(bytes, "number");
  return { envelope: env, kind };
}

/** Decodes and validates a response. Throws ProtocolError. */
export function decodeResponse(bytes: Uint8Array, ints: IntegerMode = "number"): { envelope: Envelope; response: Response } {
  const { env, kind, r } = readEnvelope(bytes, ints);
  const response = decodeBody(env, () => readResponse(kind, r));
  return { envelope: env, response };
}

/**
 * Decodes a response without envelope (its kind byte, then its body), as the
 * in-worker API's direct calls answer. Throws ProtocolError.
 */
export function decodeResponseBody(bytes: Uint8Array, ints: IntegerMode = "number"): Response {
  const r = new Reader(bytes, ints);
  try {
    return readResponse(r.u8(), r);
  } catch (e) {
    if (e instanceof Malformed) throw new ProtocolError("MALFORMED_MESSAGE", e.message);
    throw e;
  }
}

/** A parameter list alone, in its wire form (a fresh copy). */
export function encodeParams(p: Params): Uint8Array {
  const w = new Writer();
  w.params(p);
  return w.finish();
}

/** Encodes the direct calls' parameter lists into one reused buffer, then copies each into the engine's input: no allocation per call. */
export class ParamsEncoder {
  private readonly w = new Writer();
  /** Encodes `p` (replacing the last list); returns its length. Throws RangeError like `encodeRequest`. */
  encode(p: Params): number {
    this.w.reset();
    this.w.params(p);
    return this.w.length;
  }
  /** Copies the last encoded list into `m` at `at`. */
  copyTo(m: Uint8Array, at: number): void {
    this.w.copyTo(m, at);
  }
}

function readResponse(kind: number, r: Reader): Response {
  let resp: Response;
  switch (kind) {
    case ResponseKind.Ready:
      resp = { kind: "ready", owner: r.id("owner id") };
      break;
    case ResponseKind.Opened:
      resp = { kind: "opened", owner: r.id("owner id") };
      break;
    case ResponseKind.Done:
      resp = { kind: "done" };
      break;
    case ResponseKind.Rows:
      resp = { kind: "rows", result: r.resultSet() };
      break;
    case ResponseKind.Prepared:
      resp = { kind: "prepared", stmt: r.u32(), paramCount: r.u32(), columns: r.columns() };
      break;
    case ResponseKind.BatchDone: {
      const n = r.count(24, "result set");
      const results: ResultSet[] = [];
      for (let i = 0; i < n; i++) results.push(r.resultSet());
      resp = { kind: "batchDone", results };
      break;
    }
    case ResponseKind.TxnState: {
      const flag = r.u8();
      if (flag > 1) throw new Malformed(`committed flag ${flag} is neither 0 nor 1`);
      resp = { kind: "txnState", committed: flag === 1 };
      break;
    }
    case ResponseKind.Bytes:
      resp = { kind: "bytes", bytes: r.bytes().slice() };
      break;
    case ResponseKind.Failed: {
      const code = r.str("error code");
      const message = r.str("error message");
      const flag = r.u8();
      if (flag > 1) throw new Malformed(`error position flag ${flag} is neither 0 nor 1`);
      resp = { kind: "failed", error: { code, message, position: flag === 1 ? r.u32() : undefined } };
      break;
    }
    case ResponseKind.Checked: {
      const n = r.count(12, "problem");
      const problems: CheckProblem[] = [];
      for (let i = 0; i < n; i++) problems.push({ page: r.u64(), detail: r.str("problem detail") });
      resp = { kind: "checked", summary: { problems, pages: r.u64(), trees: r.u64(), entries: r.u64(), freePages: r.u64() } };
      break;
    }
    default:
      throw new Malformed(`unknown response kind ${kind}`);
  }
  r.end();
  return resp;
}

/** Decodes and validates a request (the fake owner of the Node tests). Throws ProtocolError. */
export function decodeRequest(bytes: Uint8Array): { envelope: Envelope; request: Request } {
  const { env, kind, r } = readEnvelope(bytes, "number");
  const request = decodeBody(env, (): Request => {
    let req: Request;
    switch (kind) {
      case RequestKind.Open:
        req = { kind: "open" };
        break;
      case RequestKind.Exec:
        req = { kind: "exec", txn: r.optId("transaction id"), sql: r.str("sql") };
        break;
      case RequestKind.Query:
        req = { kind: "query", txn: r.optId("transaction id"), sql: r.str("sql"), params: r.params() };
        break;
      case RequestKind.Prepare:
        req = { kind: "prepare", sql: r.str("sql") };
        break;
      case RequestKind.Run:
        req = { kind: "run", txn: r.optId("transaction id"), stmt: r.u32(), params: r.params() };
        break;
      case RequestKind.Finalize:
        req = { kind: "finalize", stmt: r.u32() };
        break;
      case RequestKind.Batch: {
        const txn = r.id("transaction id");
        const n = r.count(5, "batch statement");
        const items: BatchItem[] = [];
        for (let i = 0; i < n; i++) items.push({ sql: r.str("sql"), params: r.params() });
        req = { kind: "batch", txn, items };
        break;
      }
      case RequestKind.Begin:
        req = { kind: "begin", txn: r.id("transaction id") };
        break;
      case RequestKind.Commit:
        req = { kind: "commit", txn: r.id("transaction id") };
        break;
      case RequestKind.Rollback:
        req = { kind: "rollback", txn: r.id("transaction id") };
        break;
      case RequestKind.TxnStatus:
        req = { kind: "txnStatus", txn: r.id("transaction id") };
        break;
      case RequestKind.Export:
        req = { kind: "export" };
        break;
      case RequestKind.Close:
        req = { kind: "close" };
        break;
      case RequestKind.Import:
        req = { kind: "import", bytes: r.bytes().slice() };
        break;
      case RequestKind.Check:
        req = { kind: "check" };
        break;
      case RequestKind.Sync:
        req = { kind: "sync" };
        break;
      default:
        throw new Malformed(`unknown request kind ${kind}`);
    }
    r.end();
    if (env.client.length === 0) throw new Malformed("request has an empty client id");
    return req;
  });
  return { envelope: env, request };
}
