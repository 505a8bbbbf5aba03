/**
 * Where tokenization keeps its tokens: the mount's internal store (in memory), or a SQL store the
 * emulator reaches for real with `pg` at the store's connection string. Tokens are never kept in
 * the clear: a record is found by the token's hash, the value is sealed with the transformation's
 * key, and a keyed hash of the value answers `tokenized`.
 */
import { Pool, Client, type PoolConfig } from "pg";
import { KeepError, badRequest } from "../replies";
import type { KeepMount } from "../state";
import type { StoredStore } from "./model";

export interface TokenRecord {
  transformationId: string;
  tokenHash: string;
  valueHash: string;
  /** The value sealed with the transformation's key (base64). */
  ciphertext: string;
  metadata: string;
  /** Milliseconds since the epoch; undefined: never expires. */
  expiresAt?: number;
  /** Order of creation, for snapshots. */
  createdAt: number;
}

export interface TokenStore {
  putMany(records: readonly TokenRecord[]): Promise<void>;
  get(transformationId: string, tokenHash: string): Promise<TokenRecord | undefined>;
  /** Whether an unexpired token stands for the value. */
  hasValue(transformationId: string, valueHash: string, now: number): Promise<boolean>;
  /** Token hashes of the transformation, oldest first. */
  keys(transformationId: string): Promise<string[]>;
  getMany(transformationId: string, tokenHashes: readonly string[]): Promise<TokenRecord[]>;
  /** Sets a token's expiration (out-of-band changes in tests). */
  setExpiration(transformationId: string, tokenHash: string, expiresAt: number): Promise<void>;
}

/** The internal store of one mount. */
export class MemoryTokenStore implements TokenStore {
  private readonly byTransformation = new Map<string, Map<string, TokenRecord>>();

  private of(transformationId: string): Map<string, TokenRecord> {
    let map = this.byTransformation.get(transformationId);
    if (!map) this.byTransformation.set(transformationId, (map = new Map()));
    return map;
  }

  async putMany(records: readonly TokenRecord[]): Promise<void> {
    for (const record of records) this.of(record.transformationId).set(record.tokenHash, { ...record });
  }

  async get(transformationId: string, tokenHash: string): Promise<TokenRecord | undefined> {
    return this.of(transformationId).get(tokenHash);
  }

  async hasValue(transformationId: string, valueHash: string, now: number): Promise<boolean> {
    for (const record of this.of(transformationId).values()) {
      if (record.valueHash === valueHash && (record.expiresAt === undefined || record.expiresAt > now)) return true;
    }
    return false;
  }

  async keys(transformationId: string): Promise<string[]> {
    return [...this.of(transformationId).keys()];
  }

  async getMany(transformationId: string, tokenHashes: readonly string[]): Promise<TokenRecord[]> {
    const map = this.of(transformationId);
    return tokenHashes.flatMap((hash) => (map.has(hash) ? [{ ...map.get(hash)! }] : []));
  }

  async setExpiration(transformationId: string, tokenHash: string, expiresAt: number): Promise<void> {
    const record = this.of(transformationId).get(tokenHash);
    if (record) record.expiresAt = expiresAt;
  }
}

/** How long the emulator waits for a store's database before answering with an error. */
const CONNECT_TIMEOUT_MS = 3000;

/** The connection string with its `{{username}}` and `{{password}}` slots filled in. */
export function fillConnectionString(template: string, username: string, password: string): string {
  return template.replace(/\{\{username\}\}/g, encodeURIComponent(username)).replace(/\{\{password\}\}/g, encodeURIComponent(password));
}

const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The service's answer when a store's database cannot be used. */
function storeError(name: string, error: unknown): KeepError {
  if (error instanceof KeepError) return error;
  const e = error as { message?: string; code?: string };
  const what = e.code === "42P01" || e.code === "3F000" ? "its schema is not initialized (write stores/<name>/schema first)" : e.message ?? String(error);
  return new KeepError(500, [`store "${name}": ${what}`]);
}

function requirePostgres(name: string, store: StoredStore): void {
  if (store.driver !== "postgres") {
    // The emulator carries only a PostgreSQL driver; a MySQL store is stored but cannot be reached.
    throw new KeepError(500, [`store "${name}": the ${store.driver} driver cannot connect from this emulator (only postgres stores are reachable)`]);
  }
}

/** A SQL store reached through a pool sized by the store's connection limits. */
export class SqlTokenStore implements TokenStore {
  private readonly table: string;

  constructor(
    readonly name: string,
    private readonly pool: Pool,
    schema: string,
  ) {
    this.table = `${quoteIdentifier(schema)}.tokens`;
  }

  private async query<R extends Record<string, unknown>>(text: string, values: unknown[]): Promise<R[]> {
    try {
      return (await this.pool.query<R>(text, values)).rows;
    } catch (e) {
      throw storeError(this.name, e);
    }
  }

  async putMany(records: readonly TokenRecord[]): Promise<void> {
    if (records.length === 0) return;
    const column = <K extends keyof TokenRecord>(key: K) => records.map((r) => r[key] ?? null);
    await this.query(
      `INSERT INTO ${this.table} (transformation_id, token_hash, value_hash, ciphertext, metadata, expiration_time, created_at)
       SELECT t, h, v, c, m, CASE WHEN e IS NULL THEN NULL ELSE to_timestamp(e / 1000.0) END, to_timestamp(a / 1000.0)
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::float8[]) AS x(t, h, v, c, m, e, a)`,
      [column("transformationId"), column("tokenHash"), column("valueHash"), column("ciphertext"), column("metadata"), column("expiresAt"), column("createdAt")],
    );
  }

  private static recordOf(row: Record<string, unknown>): TokenRecord {
    const expiration = row.expiration_time as Date | null;
    return {
      transformationId: String(row.transformation_id),
      tokenHash: String(row.token_hash),
      valueHash: String(row.value_hash),
      ciphertext: String(row.ciphertext),
      metadata: String(row.metadata ?? ""),
      expiresAt: expiration ? expiration.getTime() : undefined,
      createdAt: (row.created_at as Date).getTime(),
    };
  }

  async get(transformationId: string, tokenHash: string): Promise<TokenRecord | undefined> {
    const rows = await this.query(`SELECT * FROM ${this.table} WHERE transformation_id = $1 AND token_hash = $2`, [transformationId, tokenHash]);
    return rows[0] && SqlTokenStore.recordOf(rows[0]);
  }

  async hasValue(transformationId: string, valueHash: string, now: number): Promise<boolean> {
    const rows = await this.query(
      `SELECT 1 FROM ${this.table} WHERE transformation_id = $1 AND value_hash = $2 AND (expiration_time IS NULL OR expiration_time > to_timestamp($3 / 1000.0)) LIMIT 1`,
      [transformationId, valueHash, now],
    );
    return rows.length > 0;
  }

  async keys(transformationId: string): Promise<string[]> {
    const rows = await this.query<{ token_hash: string }>(`SELECT token_hash FROM ${this.table} WHERE transformation_id = $1 ORDER BY created_at, token_hash`, [transformationId]);
    return rows.map((r) => r.token_hash);
  }

  async getMany(transformationId: string, tokenHashes: readonly string[]): Promise<TokenRecord[]> {
    const rows = await this.query(`SELECT * FROM ${this.table} WHERE transformation_id = $1 AND token_hash = ANY($2::text[])`, [transformationId, [...tokenHashes]]);
    const byHash = new Map(rows.map((row) => [String(row.token_hash), SqlTokenStore.recordOf(row)]));
    return tokenHashes.flatMap((hash) => (byHash.has(hash) ? [byHash.get(hash)!] : []));
  }

  async setExpiration(transformationId: string, tokenHash: string, expiresAt: number): Promise<void> {
    await this.query(`UPDATE ${this.table} SET expiration_time = to_timestamp($3 / 1000.0) WHERE transformation_id = $1 AND token_hash = $2`, [
      transformationId,
      tokenHash,
      expiresAt,
    ]);
  }
}

/**
 * Pools of the SQL stores, one per mount, store and settings; a changed store gets a new pool.
 * Idle connections let the process exit, and `close` ends every pool.
 */
export class SqlPools {
  private readonly pools = new Map<string, { signature: string; pool: Pool }>();

  private static keyOf(mount: KeepMount, name: string): string {
    return `${mount.namespace.path}\u0000${mount.path}\u0000${name}`;
  }

  storeFor(mount: KeepMount, name: string, store: StoredStore): SqlTokenStore {
    requirePostgres(name, store);
    const key = SqlPools.keyOf(mount, name);
    const signature = JSON.stringify(store);
    let entry = this.pools.get(key);
    if (!entry || entry.signature !== signature) {
      if (entry) void entry.pool.end().catch(() => undefined);
      const config: PoolConfig = {
        connectionString: fillConnectionString(store.connection_string, store.username, store.password),
        max: Math.max(1, store.max_open_connections),
        idleTimeoutMillis: 10_000,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        allowExitOnIdle: true,
        ...(store.max_connection_lifetime > 0 ? { maxLifetimeSeconds: store.max_connection_lifetime } : {}),
      };
      const pool = new Pool(config);
      // An idle connection the database drops must not end the emulator's process.
      pool.on("error", () => undefined);
      entry = { signature, pool };
      this.pools.set(key, entry);
    }
    return new SqlTokenStore(name, entry.pool, store.schema);
  }

  /** Ends the pool of a store that changed or went away. */
  forget(mount: KeepMount, name: string): void {
    const key = SqlPools.keyOf(mount, name);
    const entry = this.pools.get(key);
    if (entry) void entry.pool.end().catch(() => undefined);
    this.pools.delete(key);
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.pool.end().catch(() => undefined)));
  }
}

/**
 * `stores/:name/schema`: creates, with the given (DDL) credentials, the schema and tables the
 * tokens need. Idempotent.
 */
export async function createStoreSchema(name: string, store: StoredStore, username: string, password: string): Promise<void> {
  requirePostgres(name, store);
  const client = new Client({
    connectionString: fillConnectionString(store.connection_string, username, password),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  client.on("error", () => undefined);
  const schema = quoteIdentifier(store.schema);
  try {
    await client.connect();
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.tokens (
         transformation_id TEXT NOT NULL,
         token_hash TEXT NOT NULL,
         value_hash TEXT NOT NULL,
         ciphertext TEXT NOT NULL,
         metadata TEXT,
         expiration_time TIMESTAMPTZ,
         created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
         PRIMARY KEY (transformation_id, token_hash))`,
    );
    await client.query(`CREATE INDEX IF NOT EXISTS tokens_value_hash ON ${schema}.tokens (transformation_id, value_hash)`);
  } catch (e) {
    throw storeError(name, e);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Store settings the service checks on write. */
export function checkConnectionString(driver: string, connectionString: string): void {
  for (const slot of ["{{username}}", "{{password}}"]) {
    if (!connectionString.includes(slot)) throw badRequest(`connection_string must contain the ${slot} slot`);
  }
  if (driver === "mysql" && !/[?&]parseTime=true(&|$)/.test(connectionString)) {
    throw badRequest("a mysql connection_string must set parseTime=true");
  }
}
