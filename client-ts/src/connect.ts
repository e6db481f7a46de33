/**
 * Builds a `Client` on a platform: runs the election and handshake (Session),
 * then the migrations. Shared by `open()` (index.ts), `openInWorker()`
 * (worker.ts) and the Node tests, which pass a fake platform.
 */

import { Client } from "./client.js";
import type { Transaction } from "./client.js";
import { Session } from "./session.js";
import type { Platform } from "./platform.js";
import type { ResolvedOptions } from "./options.js";
import type { SqlValue } from "./protocol.js";

/** The table recording which migrations ran (one row per applied migration index). */
export const MIGRATIONS_TABLE = "_tinyjoin_migrations";

export async function connect<Row>(platform: Platform, name: string, opts: ResolvedOptions, shared: boolean): Promise<Client<Row>> {
  const session = new Session(platform, { name, owner: opts.owner, integers: opts.integers, openTimeoutMs: opts.openTimeoutMs, shared });
  await session.start();
  const client = new Client<Row>(session, { rows: opts.rows });
  try {
    await migrate(client, opts.migrations);
  } catch (e) {
    await client.close();
    throw e;
  }
  return client;
}

/**
 * Applies each migration not yet recorded, in its own transaction. The check
 * and the migration run in one serialized write transaction at the owner, so
 * whichever tabs open concurrently, each migration runs exactly once; every
 * tab's `open` resolves only after all are applied.
 */
async function migrate<Row>(client: Client<Row>, migrations: readonly string[]): Promise<void> {
  if (migrations.length === 0) return;
  await client.exec(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE}(version INTEGER PRIMARY KEY)`);
  for (let i = 0; i < migrations.length; i++) {
    const sql = migrations[i] ?? "";
    await client.transaction(async (tx: Transaction<Row>) => {
      const done = await tx.query(`SELECT version FROM ${MIGRATIONS_TABLE} WHERE version = ?`, [i]);
      if (done.rows.length > 0) return;
      await tx.exec(sql);
      await tx.query(`INSERT INTO ${MIGRATIONS_TABLE}(version) VALUES (?)`, [i as SqlValue]);
    });
  }
}
