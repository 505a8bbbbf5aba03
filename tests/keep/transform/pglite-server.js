// Serves an in-memory PGlite over the PostgreSQL wire protocol on loopback and prints its address.
// A separate process: PGlite loads its WebAssembly through dynamic import, which jest's VM refuses.
// Its one argument, when given, names a dump of a new database's data folder: loaded when it exists
// (a fraction of a second), else written after the database is made (initdb, some seconds of CPU).
const fs = require("node:fs");
const { PGlite } = require("@electric-sql/pglite");
const { PGLiteSocketServer } = require("@electric-sql/pglite-socket");

async function newDatabase(dump) {
  if (dump && fs.existsSync(dump)) return PGlite.create({ loadDataDir: new Blob([fs.readFileSync(dump)]) });
  const db = await PGlite.create();
  if (dump) {
    const written = `${dump}.${process.pid}`;
    fs.writeFileSync(written, Buffer.from(await (await db.dumpDataDir("none")).arrayBuffer()));
    fs.renameSync(written, dump);
  }
  return db;
}

(async () => {
  const db = await newDatabase(process.argv[2]);
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 16 });
  await server.start();
  process.stdout.write(`${JSON.stringify({ address: server.getServerConn() })}\n`);
  // Ends when the parent closes stdin or goes away.
  process.stdin.resume();
  process.stdin.on("end", async () => {
    await server.stop();
    await db.close();
    process.exit(0);
  });
})().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e));
  process.exit(1);
});
