/**
 * `Client`, the public API of a database (`open()` in index.ts returns one),
 * and the failover policy of each call, built on `Session.call`:
 *
 * - autocommit `exec`/`query`/`run`, and `batch`: sent with a fresh
 *   transaction id. If the owner is lost in flight, ask the next owner "did X
 *   commit?": yes → resolve (result marked `recovered`, rows unavailable);
 *   no → send again (it had no effect). Reads are retried this way too.
 * - inside `transaction()`: the transaction died with its owner; the call and
 *   every later call of that transaction reject with `OWNER_LOST`.
 * - the commit of a transaction: ask "did X commit?"; resolve or reject with
 *   `OWNER_LOST`.
 * - `prepare`, `exportBytes`: sent again. A prepared statement remembers the
 *   epoch it was prepared for and re-prepares at a new owner on next use.
 */

import { LostInFlight, Session } from "./session.js";
import type { Role } from "./session.js";
import { TinyJoinError } from "./errors.js";
import type { BatchItem, CheckSummary, Params, Request, Response, ResultSet, SqlValue } from "./protocol.js";

/** Parameters: positional (`?`, `?N`) as an array, or named (`:a`, `@a`, `$a`) as an object. */
export type BindParams = readonly SqlValue[] | Readonly<Record<string, SqlValue | boolean | undefined>> | readonly (SqlValue | boolean | undefined)[];

/** A row as an object keyed by column name. */
export type RowObject = Record<string, SqlValue>;

/** The result of one statement. */
export interface QueryResult<Row = SqlValue[]> {
  readonly columns: readonly string[];
  readonly rows: Row[];
  /** Rows inserted, updated or deleted. */
  readonly changes: number;
  readonly lastInsertRowid: number | bigint;
  /**
   * True when the owner was lost after running the statement and the next
   * owner confirmed it committed: the change is there, the rows and counts
   * are not available.
   */
  readonly recovered: boolean;
}

/** One statement of `batch()`. */
export type BatchStatement = string | { readonly sql: string; readonly params?: BindParams } | readonly [string, BindParams?];

function isRecordParams(p: BindParams): p is Readonly<Record<string, SqlValue | boolean | undefined>> {
  return !Array.isArray(p) && !(p instanceof Uint8Array);
}

const paramName = (at: number | string): string => `parameter ${typeof at === "number" ? at + 1 : at}`;

/** One parameter (`at`: its index or name; the message is built only on error). */
function toValue(v: SqlValue | boolean | undefined, at: number | string): SqlValue {
  if (v === undefined) return null;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "bigint" && (v < -(1n << 63n) || v >= 1n << 63n)) {
    throw new TinyJoinError("INVALID_ARGUMENT", `${paramName(at)}: ${v} does not fit in a 64-bit INTEGER`);
  }
  if (v === null || typeof v === "number" || typeof v === "bigint" || typeof v === "string" || v instanceof Uint8Array) return v;
  throw new TinyJoinError("INVALID_ARGUMENT", `${paramName(at)}: cannot bind a value of type ${typeof v}`);
}

/** Converts user parameters to the wire form, refusing what cannot be bound. */
export function toParams(p: BindParams | undefined): Params {
  if (p === undefined) return { tag: "none" };
  if (Array.isArray(p)) {
    const arr: readonly (SqlValue | boolean | undefined)[] = p;
    const values = new Array<SqlValue>(arr.length);
    for (let i = 0; i < arr.length; i++) values[i] = toValue(arr[i], i);
    return { tag: "positional", values };
  }
  if (isRecordParams(p)) {
    const values = Object.entries(p).map(([k, v]) => [/^[:@$]/.test(k) ? k : `:${k}`, toValue(v, k)] as const);
    return { tag: "named", values };
  }
  throw new TinyJoinError("INVALID_ARGUMENT", "parameters must be an array or an object");
}

function toBatchItem(s: BatchStatement): BatchItem {
  if (typeof s === "string") return { sql: s, params: { tag: "none" } };
  if (Array.isArray(s)) {
    const [sql, params] = s as readonly [string, BindParams?];
    return { sql, params: toParams(params) };
  }
  const o = s as { readonly sql: string; readonly params?: BindParams };
  return { sql: o.sql, params: toParams(o.params) };
}

/** A result without rows, made anew each time: `shape` hands its arrays to the caller. */
const empty = (): ResultSet => ({ columns: [], rows: [], changes: 0, lastInsertRowid: 0 });

function expectRows(r: Response): ResultSet {
  if (r.kind === "rows") return r.result;
  if (r.kind === "done") return empty();
  throw new TinyJoinError("MALFORMED_MESSAGE", `expected rows from the owner, got ${r.kind}`);
}

/** Shape options of a client. */
export interface ShapeOptions {
  readonly rows: "array" | "object";
}

/** Operations shared by the client and a transaction. */
export interface Queryable<Row> {
  exec(sql: string): Promise<void>;
  query(sql: string, params?: BindParams): Promise<QueryResult<Row>>;
  run(sql: string, params?: BindParams): Promise<QueryResult<Row>>;
}

/** A statement compiled at the owner, re-prepared transparently after a failover. */
export class PreparedStatement<Row = SqlValue[]> {
  private stmt: number | null = null;
  private epoch = -1;
  private finalized = false;
  /** Result columns, known after the first preparation. */
  columns: readonly string[] = [];
  paramCount = 0;

  constructor(private readonly client: Client<Row>, readonly sql: string) {}

  /** The statement id at the current owner, preparing it there if needed. */
  async idAtOwner(): Promise<number> {
    if (this.finalized) throw new TinyJoinError("MISUSE", "the statement was finalized");
    const ready = this.readyId();
    if (ready !== null) return ready;
    const session = this.client.session;
    for (;;) {
      try {
        const r = await session.call({ kind: "prepare", sql: this.sql });
        if (r.kind !== "prepared") throw new TinyJoinError("MALFORMED_MESSAGE", `expected prepared, got ${r.kind}`);
        this.stmt = r.stmt;
        this.epoch = session.epoch;
        this.columns = r.columns;
        this.paramCount = r.paramCount;
        return r.stmt;
      } catch (e) {
        if (!(e instanceof LostInFlight)) throw e;
      }
    }
  }

  /**
   * The statement id when it is prepared at the current owner, so a run
   * needs no `idAtOwner` round (the common case, kept free of promises);
   * else null.
   */
  readyId(): number | null {
    return !this.finalized && this.stmt !== null && this.epoch === this.client.session.epoch ? this.stmt : null;
  }

  /** Runs the statement in autocommit. */
  run(params?: BindParams): Promise<QueryResult<Row>> {
    return this.client.autocommit((txn) => {
      const stmt = this.readyId();
      if (stmt !== null) return { kind: "run", txn, stmt, params: toParams(params) };
      return this.idAtOwner().then((id) => ({ kind: "run", txn, stmt: id, params: toParams(params) }));
    });
  }

  /** Releases the statement at the owner. */
  async finalize(): Promise<void> {
    if (this.finalized) return;
    this.finalized = true;
    if (this.stmt !== null && this.epoch === this.client.session.epoch) {
      await this.client.session.call({ kind: "finalize", stmt: this.stmt }).catch(() => undefined);
    }
  }
}

/** The handle passed to a `transaction()` callback. */
export class Transaction<Row = SqlValue[]> implements Queryable<Row> {
  /** Set when the transaction can no longer be used (ended, or its owner was lost). */
  dead: TinyJoinError | null = null;

  /** The owner epoch the transaction was opened at: only that owner can run it. */
  constructor(private readonly client: Client<Row>, readonly id: string, readonly epoch: number) {}

  /** An in-thread owner's answer, at once (one promise, not one per layer), or null: then `send`. */
  private direct(req: Request): Response | null {
    if (this.dead !== null) throw this.dead;
    return this.client.session.tryDirect(req, this.epoch);
  }

  private async send(req: Request): Promise<Response> {
    try {
      return await this.client.session.send(req, this.epoch);
    } catch (e) {
      if (e instanceof LostInFlight) {
        this.dead = new TinyJoinError("OWNER_LOST", `the owner was lost during transaction ${this.id}; it was rolled back`);
        throw this.dead;
      }
      throw e;
    }
  }

  async exec(sql: string): Promise<void> {
    const req: Request = { kind: "exec", txn: this.id, sql };
    if (this.direct(req) === null) await this.send(req);
  }

  async query(sql: string, params?: BindParams): Promise<QueryResult<Row>> {
    const req: Request = { kind: "query", txn: this.id, sql, params: toParams(params) };
    return this.client.shape(expectRows(this.direct(req) ?? (await this.send(req))), false);
  }

  run(sql: string, params?: BindParams): Promise<QueryResult<Row>> {
    return this.query(sql, params);
  }

  /** Runs a prepared statement inside this transaction. */
  async runPrepared(stmt: PreparedStatement<Row>, params?: BindParams): Promise<QueryResult<Row>> {
    const id = stmt.readyId() ?? (await stmt.idAtOwner());
    const req: Request = { kind: "run", txn: this.id, stmt: id, params: toParams(params) };
    return this.client.shape(expectRows(this.direct(req) ?? (await this.send(req))), false);
  }
}

/** A database client: owner or follower, decided by election. */
export class Client<Row = SqlValue[]> implements Queryable<Row> {
  private txnCounter = 0;
  /** Client transactions run one at a time: each waits for the previous. */
  private txnChain: Promise<unknown> = Promise.resolve();

  constructor(readonly session: Session, private readonly shapeOpts: ShapeOptions) {}

  /** "owner" if this tab's Worker holds the database file, else "follower". */
  get role(): Role {
    return this.session.role ?? "follower";
  }

  get clientId(): string {
    return this.session.clientId;
  }

  /** The epoch of the owner this client talks to (grows with each election). */
  get epoch(): number {
    return this.session.epoch;
  }

  /** Calls `listener` whenever this client's role changes; returns an unsubscribe function. */
  onRoleChange(listener: (role: Role) => void): () => void {
    return this.session.onRoleChange(listener);
  }

  /** A transaction id unique to this client: `<client id>.<counter>`. */
  newTxnId(): string {
    this.txnCounter += 1;
    return `${this.session.clientId}.${this.txnCounter}`;
  }

  /**
   * The caller's result. A result set is the caller's alone (the decoder,
   * or `empty`, made its arrays for this response), so array rows are
   * handed over as they are; plain loops, as this runs once per request.
   */
  shape(rs: ResultSet, recovered: boolean): QueryResult<Row> {
    let rows: unknown[];
    if (this.shapeOpts.rows === "object") {
      const cols = rs.columns;
      rows = new Array(rs.rows.length);
      for (let i = 0; i < rs.rows.length; i++) {
        const r = rs.rows[i] as SqlValue[];
        const o: RowObject = {};
        for (let c = 0; c < cols.length; c++) o[cols[c] as string] = r[c] ?? null;
        rows[i] = o;
      }
    } else {
      rows = rs.rows as unknown[];
    }
    return { columns: rs.columns, rows: rows as Row[], changes: rs.changes, lastInsertRowid: rs.lastInsertRowid, recovered };
  }

  /** Runs one autocommit request under a fresh transaction id, with the failover policy above. */
  async autocommit(make: (txn: string) => Promise<Request> | Request): Promise<QueryResult<Row>> {
    const txn = this.newTxnId();
    for (;;) {
      try {
        const made = make(txn);
        const req = made instanceof Promise ? await made : made;
        return this.shape(expectRows(this.session.tryDirect(req) ?? (await this.session.send(req))), false);
      } catch (e) {
        if (!(e instanceof LostInFlight)) throw e;
        if (await this.committed(txn)) return this.shape(empty(), true);
      }
    }
  }

  /** Asks the current (or next) owner whether transaction `txn` committed. */
  private async committed(txn: string): Promise<boolean> {
    for (;;) {
      try {
        const r = await this.session.call({ kind: "txnStatus", txn });
        if (r.kind !== "txnState") throw new TinyJoinError("MALFORMED_MESSAGE", `expected txnState, got ${r.kind}`);
        return r.committed;
      } catch (e) {
        if (!(e instanceof LostInFlight)) throw e;
      }
    }
  }

  /** Runs every statement of `sql` (no parameters, no rows). */
  async exec(sql: string): Promise<void> {
    await this.autocommit((txn) => ({ kind: "exec", txn, sql }));
  }

  /** Runs one statement and returns its rows. */
  async query(sql: string, params?: BindParams): Promise<QueryResult<Row>> {
    const p = toParams(params);
    return this.autocommit((txn) => ({ kind: "query", txn, sql, params: p }));
  }

  /** Same as `query`, named for statements run for their effect. */
  run(sql: string, params?: BindParams): Promise<QueryResult<Row>> {
    return this.query(sql, params);
  }

  /** Compiles a statement at the owner. */
  async prepare(sql: string): Promise<PreparedStatement<Row>> {
    const stmt = new PreparedStatement<Row>(this, sql);
    await stmt.idAtOwner();
    return stmt;
  }

  /** Runs `statements` as one transaction in one round trip; one result per statement. */
  async batch(statements: readonly BatchStatement[]): Promise<QueryResult<Row>[]> {
    const items = statements.map(toBatchItem);
    const txn = this.newTxnId();
    for (;;) {
      try {
        const r = await this.session.call({ kind: "batch", txn, items });
        if (r.kind !== "batchDone") throw new TinyJoinError("MALFORMED_MESSAGE", `expected batchDone, got ${r.kind}`);
        return r.results.map((rs) => this.shape(rs, false));
      } catch (e) {
        if (!(e instanceof LostInFlight)) throw e;
        if (await this.committed(txn)) return items.map(() => this.shape(empty(), true));
      }
    }
  }

  /**
   * Runs `fn` in a write transaction: commits when it resolves, rolls back
   * when it throws. Transactions of all clients are serialized at the owner.
   */
  transaction<T>(fn: (tx: Transaction<Row>) => Promise<T>): Promise<T> {
    const run = this.txnChain.then(() => this.runTransaction(fn));
    this.txnChain = run.catch(() => undefined);
    return run;
  }

  private async runTransaction<T>(fn: (tx: Transaction<Row>) => Promise<T>): Promise<T> {
    const id = this.newTxnId();
    for (;;) {
      try {
        await this.session.call({ kind: "begin", txn: id });
        break;
      } catch (e) {
        // A BEGIN lost in flight opened nothing that survives: begin again.
        if (!(e instanceof LostInFlight)) throw e;
      }
    }
    // The answer came from the owner of the current epoch (others' answers are ignored).
    const tx = new Transaction<Row>(this, id, this.session.epoch);
    let result: T;
    try {
      result = await fn(tx);
    } catch (e) {
      if (tx.dead === null) {
        tx.dead = new TinyJoinError("MISUSE", `transaction ${tx.id} has ended`);
        await this.session.call({ kind: "rollback", txn: tx.id }, tx.epoch).catch(() => undefined);
      }
      throw e;
    }
    if (tx.dead !== null) throw tx.dead;
    tx.dead = new TinyJoinError("MISUSE", `transaction ${tx.id} has ended`);
    try {
      await this.session.call({ kind: "commit", txn: tx.id }, tx.epoch);
    } catch (e) {
      if (!(e instanceof LostInFlight)) throw e;
      if (!(await this.committed(tx.id))) {
        throw new TinyJoinError("OWNER_LOST", `the owner was lost while committing transaction ${tx.id}; it did not commit`);
      }
    }
    return result;
  }

  /** A consistent copy of the database file. */
  async exportBytes(): Promise<Uint8Array> {
    for (;;) {
      try {
        const r = await this.session.call({ kind: "export" });
        if (r.kind !== "bytes") throw new TinyJoinError("MALFORMED_MESSAGE", `expected bytes, got ${r.kind}`);
        return r.bytes;
      } catch (e) {
        if (!(e instanceof LostInFlight)) throw e;
      }
    }
  }

  /**
   * Replaces the database with `bytes` (a database file, e.g. from
   * `exportBytes`). The owner validates them fully first: a bad file rejects
   * with CORRUPT and changes nothing. Every client's prepared statements are
   * re-prepared on next use.
   */
  async importBytes(bytes: Uint8Array): Promise<void> {
    if (!(bytes instanceof Uint8Array)) throw new TinyJoinError("INVALID_ARGUMENT", "importBytes takes a Uint8Array");
    for (;;) {
      try {
        // Replacing with the same bytes twice is harmless, so a lost request is simply re-sent.
        await this.session.call({ kind: "import", bytes });
        return;
      } catch (e) {
        if (!(e instanceof LostInFlight)) throw e;
      }
    }
  }

  /**
   * Runs the full validation of the database at the owner (like SQLite's
   * `integrity_check`) and returns every problem found; none means sound.
   */
  async check(): Promise<CheckSummary> {
    for (;;) {
      try {
        const r = await this.session.call({ kind: "check" });
        if (r.kind !== "checked") throw new TinyJoinError("MALFORMED_MESSAGE", `expected checked, got ${r.kind}`);
        return r.summary;
      } catch (e) {
        if (!(e instanceof LostInFlight)) throw e;
      }
    }
  }

  /**
   * Resolves once every commit so far is durable and the newest one
   * confirmed. With `commit: "deferred"` the owner flushes the file now
   * instead of within 100 ms; with "one-flush" every commit is durable when
   * its promise resolves, and the owner confirms the newest now (so damage
   * to its pages would be reported, not read as a torn commit); with
   * "two-flush" this resolves after a round trip to the owner.
   */
  async sync(): Promise<void> {
    for (;;) {
      try {
        // Syncing twice is harmless, so a lost request is simply re-sent.
        await this.session.call({ kind: "sync" });
        return;
      } catch (e) {
        if (!(e instanceof LostInFlight)) throw e;
      }
    }
  }

  /** Closes the client: rolls back its open transaction, releases its locks (and, if owner, the file). */
  close(): Promise<void> {
    return this.session.close();
  }
}
