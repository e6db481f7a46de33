// Fakes of the browser for the Node tests: a Web Lock manager, a
// BroadcastChannel hub, tabs that can die, and a fake owner that speaks the
// real wire protocol (dist/protocol.js) over a tiny "database": a list of
// text rows. The fake owner follows PROTOCOL.md's rules that the client
// depends on: epochs persisted with the data, STALE_EPOCH, serialized client
// transactions, commit records answering TXN_STATUS.
//
// "SQL" understood by the fake: `INSERT <text>` appends a row, `SELECT`
// returns all rows (column "v"), `FAIL` fails with SQL_SYNTAX at position 0.

await import("./dist.mjs");
const { decodeRequest, encodeResponse } = await import("../dist/protocol.js");
const { clientLock, channelName } = await import("../dist/names.js");

/** Waits until every queued microtask and immediate has run. */
export const settle = () => new Promise((r) => setImmediate(r));

export class FakeLocks {
  constructor() {
    this.held = new Map(); // name -> { tab, release }
    this.waiting = new Map(); // name -> [{ tab, grant, signal }]
  }
  /** The LockManager of one tab. */
  forTab(tab) {
    return { request: (name, options, cb) => this.request(tab, name, options, cb) };
  }
  request(tab, name, options, cb) {
    if (tab.dead) return new Promise(() => undefined);
    return new Promise((resolve, reject) => {
      const grant = () => {
        let release;
        const released = new Promise((r) => (release = r));
        this.held.set(name, { tab, release });
        Promise.race([Promise.resolve().then(() => cb({ name })), released]).then(
          (v) => {
            this.release(name);
            resolve(v);
          },
          (e) => {
            this.release(name);
            reject(e);
          },
        );
      };
      if (!this.held.has(name)) {
        grant();
        return;
      }
      if (options.ifAvailable) {
        Promise.resolve()
          .then(() => cb(null))
          .then(resolve, reject);
        return;
      }
      const entry = { tab, grant };
      const q = this.waiting.get(name) ?? [];
      q.push(entry);
      this.waiting.set(name, q);
      options.signal?.addEventListener("abort", () => {
        const q2 = this.waiting.get(name) ?? [];
        const i = q2.indexOf(entry);
        if (i >= 0) {
          q2.splice(i, 1);
          reject(new DOMException("aborted", "AbortError"));
        }
      });
    });
  }
  release(name) {
    if (!this.held.has(name)) return;
    this.held.delete(name);
    const q = this.waiting.get(name) ?? [];
    const next = q.shift();
    if (next) next.grant();
  }
  /** A tab died: its held locks are released, its waiting requests dropped. */
  killTab(tab) {
    for (const [name, q] of this.waiting) this.waiting.set(name, q.filter((e) => e.tab !== tab));
    for (const [name, h] of [...this.held]) {
      // Resolving `released` ends the holder's race, which releases the lock.
      if (h.tab === tab) h.release();
    }
  }
}

export class FakeHub {
  constructor() {
    this.channels = new Set();
  }
  create(name, tab) {
    const hub = this;
    const ch = {
      name,
      tab,
      onmessage: null,
      postMessage(m) {
        for (const other of hub.channels) {
          if (other !== ch && other.name === name) {
            const copy = m instanceof Uint8Array ? m.slice() : m;
            setImmediate(() => other.onmessage?.({ data: copy }));
          }
        }
      },
      close() {
        hub.channels.delete(ch);
      },
    };
    this.channels.add(ch);
    return ch;
  }
  killTab(tab) {
    for (const ch of [...this.channels]) if (ch.tab === tab) ch.close();
  }
}

/** The persistent state of one fake database ("the OPFS file"). */
export function fakeDisk() {
  return { epoch: 0, rows: [], commits: new Set(), requestsSeen: 0 };
}

/** A fake owner: the wire protocol over `disk`. */
class FakeOwner {
  constructor(world, tab, name, local, toLocal) {
    this.world = world;
    this.tab = tab;
    this.name = name;
    this.local = local;
    this.toLocal = toLocal;
    this.disk = world.disks.get(name) ?? fakeDisk();
    world.disks.set(name, this.disk);
    this.disk.epoch += 1;
    this.epoch = this.disk.epoch;
    this.writer = null; // { client, txn, rows }
    this.queue = [];
    this.watched = new Set();
    this.channel = world.hub.create(channelName(name), tab);
    this.channel.onmessage = (ev) => {
      if (ev.data instanceof Uint8Array) this.handle(ev.data);
    };
    this.channel.postMessage(encodeResponse({ epoch: this.epoch, client: local, request: 0 }, { kind: "ready", owner: local }));
  }
  reply(env, resp) {
    const bytes = encodeResponse({ epoch: this.epoch, client: env.client, request: env.request }, resp);
    if (env.client === this.local) setImmediate(() => this.toLocal(bytes));
    else this.channel.postMessage(bytes);
  }
  handle(bytes) {
    if (this.tab.dead || bytes[2] >= 0x40) return;
    let msg;
    try {
      msg = decodeRequest(bytes);
    } catch (e) {
      if (e.envelope) this.reply(e.envelope, { kind: "failed", error: { code: e.code, message: e.message, position: undefined } });
      return;
    }
    this.disk.requestsSeen += 1;
    if (this.world.hold?.(msg, this)) return; // the test freezes this request (the owner "dies" before answering)
    this.dispatch(msg.envelope, msg.request);
    this.drain();
  }
  dispatch(env, req) {
    if (req.kind !== "open" && env.epoch !== this.epoch) {
      this.reply(env, { kind: "failed", error: { code: "STALE_EPOCH", message: "stale", position: undefined } });
      return;
    }
    const out = this.serve(env, req);
    if (out === "wait") this.queue.push([env, req]);
    else this.reply(env, out);
  }
  drain() {
    while (this.writer === null && this.queue.length > 0) {
      const [env, req] = this.queue.shift();
      const out = this.serve(env, req);
      if (out === "wait") {
        this.queue.unshift([env, req]);
        return;
      }
      this.reply(env, out);
    }
  }
  clientGone(id) {
    if (this.writer?.client === id) this.writer = null;
    this.queue = this.queue.filter(([env]) => env.client !== id);
    this.drain();
  }
  run(sql, rows) {
    if (sql === "FAIL") return { kind: "failed", error: { code: "SQL_SYNTAX", message: "near FAIL", position: 0 } };
    if (sql.startsWith("INSERT ")) {
      rows.push(sql.slice(7));
      return { kind: "rows", result: { columns: [], rows: [], changes: 1, lastInsertRowid: rows.length } };
    }
    return { kind: "rows", result: { columns: ["v"], rows: rows.map((r) => [r]), changes: 0, lastInsertRowid: 0 } };
  }
  serve(env, req) {
    const w = this.writer;
    switch (req.kind) {
      case "open":
        if (env.client !== this.local && !this.watched.has(env.client)) {
          this.watched.add(env.client);
          const locks = this.world.locks.forTab(this.tab);
          void locks.request(clientLock(this.name, env.client), {}, () => this.clientGone(env.client));
        }
        return { kind: "opened", owner: this.local };
      case "exec":
      case "query": {
        if (w && w.client === env.client && w.txn === req.txn) return this.run(req.sql, w.rows);
        const isWrite = req.sql !== "SELECT";
        if (!isWrite) return this.run(req.sql, this.disk.rows);
        if (w) return w.client === env.client ? { kind: "failed", error: { code: "MISUSE", message: "own txn open", position: undefined } } : "wait";
        const rows = [...this.disk.rows];
        const out = this.run(req.sql, rows);
        if (out.kind === "rows") {
          this.disk.rows = rows;
          if (req.txn) this.disk.commits.add(req.txn);
        }
        return out;
      }
      case "begin":
        if (w) return w.client === env.client ? { kind: "failed", error: { code: "MISUSE", message: "open", position: undefined } } : "wait";
        this.writer = { client: env.client, txn: req.txn, rows: [...this.disk.rows] };
        return { kind: "done" };
      case "commit":
        if (!w || w.client !== env.client || w.txn !== req.txn) return { kind: "failed", error: { code: "MISUSE", message: "not open", position: undefined } };
        this.disk.rows = w.rows;
        this.disk.commits.add(req.txn);
        this.writer = null;
        return { kind: "done" };
      case "rollback":
        if (w && w.client === env.client && w.txn === req.txn) this.writer = null;
        return { kind: "done" };
      case "batch": {
        if (w) return "wait";
        const rows = [...this.disk.rows];
        const results = [];
        for (const it of req.items) {
          const out = this.run(it.sql, rows);
          if (out.kind === "failed") return out;
          results.push(out.result);
        }
        this.disk.rows = rows;
        this.disk.commits.add(req.txn);
        return { kind: "batchDone", results };
      }
      case "txnStatus":
        return { kind: "txnState", committed: this.disk.commits.has(req.txn) };
      case "close":
        this.clientGone(env.client);
        return { kind: "done" };
      default:
        return { kind: "failed", error: { code: "MISUSE", message: `fake owner: ${req.kind} unsupported`, position: undefined } };
    }
  }
  stop() {
    this.channel.close();
  }
}

/** A fake browser: shared locks, channels and disks; tabs made with `tab()`. */
export class World {
  constructor() {
    this.locks = new FakeLocks();
    this.hub = new FakeHub();
    this.disks = new Map();
    this.owners = [];
    this.hold = null;
    this.nextId = 0;
  }
  tab() {
    const tab = { dead: false, owners: [] };
    const world = this;
    tab.platform = {
      locks: world.locks.forTab(tab),
      createChannel: (name) => world.hub.create(name, tab),
      randomId: () => `client${++world.nextId}`,
      async startOwner(name, clientId) {
        const port = { onmessage: null, onfailure: null, post: (b) => owner.handle(b), terminate: async () => owner.stop() };
        const owner = new FakeOwner(world, tab, name, clientId, (bytes) => port.onmessage?.(bytes));
        tab.owners.push(owner);
        world.owners.push(owner);
        return port;
      },
    };
    return tab;
  }
  /** The tab dies: its locks are released, its channels and owner Worker vanish. */
  kill(tab) {
    tab.dead = true;
    for (const o of tab.owners) o.stop();
    this.hub.killTab(tab);
    this.locks.killTab(tab);
  }
}
