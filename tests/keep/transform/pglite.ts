/**
 * An embedded PostgreSQL for transform-store tests: PGlite served over the PostgreSQL wire protocol
 * on loopback by pglite-socket, in a child process, so the emulator reaches it with `pg` like any
 * database (and so do the tests' own queries).
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { once } from "node:events";
import { Client } from "pg";

export interface EmbeddedPostgres {
  /** `host:port` on loopback. */
  address: string;
  /** A connection string with the service's `{{username}}` and `{{password}}` slots. */
  connectionString: string;
  /** Runs SQL in the database over its socket. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/**
 * A new database's data folder, dumped once per test run into the run's shared folder (made by jest's
 * global setup): every later database of the run starts from it instead of running initdb again.
 */
function initialDataDump(): string[] {
  const run = process.env.KEEPSTACK_ENGINE_RUN;
  return run ? [path.join(run, "pglite-new-database.tar")] : [];
}

export async function startEmbeddedPostgres(): Promise<EmbeddedPostgres> {
  const child = spawn(process.execPath, [path.join(__dirname, "pglite-server.js"), ...initialDataDump()], { stdio: ["pipe", "pipe", "inherit"] });
  let buffered = "";
  const address = await new Promise<string>((resolve, reject) => {
    child.on("exit", (code) => reject(new Error(`the embedded PostgreSQL exited with ${code}`)));
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split("\n")[0];
      if (buffered.includes("\n")) resolve((JSON.parse(line) as { address: string }).address);
    });
  });
  return {
    address,
    connectionString: `postgresql://{{username}}:{{password}}@${address}/postgres`,
    async query<T>(sql: string, params: unknown[] = []) {
      const client = new Client({ connectionString: `postgresql://postgres:postgres@${address}/postgres` });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows as T[];
      } finally {
        await client.end();
      }
    },
    async close() {
      child.stdin.end();
      if (child.exitCode === null) await once(child, "exit");
    },
  };
}
