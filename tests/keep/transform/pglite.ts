/**
 * An embedded PostgreSQL for transform-store tests: PGlite served over the PostgreSQL wire protocol
 * on loopback by pglite-socket, so the emulator reaches it with `pg` like any database.
 */
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export interface EmbeddedPostgres {
  /** `host:port` on loopback. */
  address: string;
  /** A connection string with the service's `{{username}}` and `{{password}}` slots. */
  connectionString: string;
  /** Runs SQL directly in the database (not over the socket). */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export async function startEmbeddedPostgres(): Promise<EmbeddedPostgres> {
  const db = await PGlite.create();
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 16 });
  await server.start();
  const address = server.getServerConn();
  return {
    address,
    connectionString: `postgresql://{{username}}:{{password}}@${address}/postgres`,
    query: async <T>(sql: string, params: unknown[] = []) => (await db.query<T>(sql, params)).rows,
    close: async () => {
      await server.stop();
      await db.close();
    },
  };
}
