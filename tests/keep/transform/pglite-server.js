// Serves an in-memory PGlite over the PostgreSQL wire protocol on loopback and prints its address.
// A separate process: PGlite loads its WebAssembly through dynamic import, which jest's VM refuses.
const { PGlite } = require("@electric-sql/pglite");
const { PGLiteSocketServer } = require("@electric-sql/pglite-socket");

(async () => {
  const db = await PGlite.create();
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
