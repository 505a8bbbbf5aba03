/**
 * The transform engine end to end: the store schema operation creating real tables in an embedded
 * PostgreSQL, tokens landing there, an encoded value that stays across runs, and the functions
 * (round trips for each tweak source and decode format, masking, tokenization with TTL and
 * metadata, snapshots over pages, batches split into requests).
 */
import * as pulumi from "@pulumi/pulumi";
import { keep } from "pulumi-keepstack";
import { transformAccess } from "../../../emulator/keep/transform";
import { summarize } from "../../../harness";
import { createContext, OperationContext } from "../../../provider/context";
import { KeepStack, keepConfig, startKeepStack } from "../../support/keep-stack";
import { EmbeddedPostgres, startEmbeddedPostgres } from "./pglite";

const TWEAK = Buffer.from("a1b2c3d4e5f607", "hex").toString("base64");
const { encode, decode, validate, isTokenized, getMetadata, snapshot, iterateSnapshot } = keep.transform;

describe("keep.transform with a PostgreSQL store", () => {
  let stack: KeepStack;
  let db: EmbeddedPostgres;
  let ctx: OperationContext;

  beforeAll(async () => {
    db = await startEmbeddedPostgres();
    stack = await startKeepStack({ engine: { env: { SCHEMA_PASSWORD: "ddl-password" } } });
    const config = keepConfig(stack.keep);
    ctx = createContext((key) => config[key]);
  });
  afterAll(async () => {
    await transformAccess(stack.keep.state).closeStores();
    await stack.close();
    await db.close();
  });

  const program = (triggers: unknown[] = []) => () => {
    const store = new keep.transform.Store("db", { name: "db", driver: "postgres", connectionString: db.connectionString, username: "tokens", password: "pw" });
    const schema = new keep.transform.StoreSchema("db-schema", { store: store.name, username: "admin", password: { fromEnv: "SCHEMA_PASSWORD" }, triggers });
    const tokens = new keep.transform.Transformation("emails", { name: "emails", type: "tokenization", stores: [store.name], maxTtl: "1h", allowedRoles: ["crm"] }, { dependsOn: [schema] });
    const card = new keep.transform.Transformation("card", { name: "card", type: "fpe", template: "builtin/creditcardnumber", tweakSource: "supplied", allowedRoles: ["crm"] });
    const generated = new keep.transform.Transformation("card-generated", { name: "card-generated", type: "fpe", template: "builtin/creditcardnumber", tweakSource: "generated", allowedRoles: ["crm"] });
    const cardFormats = new keep.transform.Template("card-formats", {
      name: "card-formats",
      pattern: "(\\d{4})-?(\\d{4})-?(\\d{4})-?(\\d{4})",
      alphabet: "builtin/numeric",
      decodeFormats: { "last-four": "$4" },
    });
    const internal = new keep.transform.Transformation("card-internal", { name: "card-internal", type: "fpe", template: cardFormats.name, tweakSource: "internal", allowedRoles: ["crm"] });
    const ssn = new keep.transform.Transformation("ssn", { name: "ssn", type: "masking", template: "builtin/socialsecuritynumber", allowedRoles: ["crm"] });
    const role = new keep.transform.Role("crm", { name: "crm", transformations: [tokens.name, card.name, generated.name, internal.name, ssn.name] });
    const stable = new keep.transform.EncodedValue("owner-token", { role: role.name, transformation: tokens.name, value: pulumi.secret("owner@example.com"), metadata: "kind=owner" });
    return { token: stable.encodedValue, secret: pulumi.isSecret(stable.encodedValue) };
  };

  test("preview runs nothing; up runs the schema operation, which creates the tables in the database", async () => {
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(program())).steps)).toEqual({ create: 10 });
    expect(stack.keep.log.count).toBe(0);
    const result = await stack.engine.up(program());
    expect(summarize(result.steps)).toEqual({ create: 10 });
    const tables = await db.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'");
    expect(tables.map((t) => t.table_name)).toEqual(["tokens"]);
    expect(JSON.stringify(stack.engine.exportState())).not.toContain("ddl-password");
  });

  test("the encoded value's token landed in the database and stays the same across runs", async () => {
    const first = await stack.engine.up(program());
    expect(summarize(first.steps)).toEqual({ same: 10 });
    expect(first.outputs.secret).toBe(true);
    const token = first.outputs.token as string;
    const rows = await db.query<{ metadata: string; ciphertext: string }>("SELECT metadata, ciphertext FROM public.tokens");
    expect(rows).toEqual([{ metadata: "kind=owner", ciphertext: expect.any(String) }]);
    expect(rows[0].ciphertext).not.toContain("owner@example.com");
    await stack.engine.refresh();
    expect((await stack.engine.up(program())).outputs.token).toBe(token);
    expect(await unwrap((await decode({ role: "crm", transformation: "emails", value: token }, ctx)).decodedValue)).toBe("owner@example.com");
  });

  test("triggers run the schema operation again (it is idempotent)", async () => {
    stack.keep.log.clear();
    const result = await stack.engine.up(program(["v2"]));
    expect(result.steps.filter((s) => s.op === "replace").map((s) => s.name)).toEqual(["db-schema"]);
    expect(stack.keep.log.lines().filter((l) => l.includes("/schema"))).toHaveLength(1);
  });

  test("tokenization: tokens written to and read from PostgreSQL; TTL and metadata; validate and isTokenized", async () => {
    const { encodedValue } = await encode({ role: "crm", transformation: "emails", value: "ana@example.com", ttl: "10m", metadata: "team=crm" }, ctx);
    expect((await db.query("SELECT 1 FROM public.tokens")).length).toBe(2);
    const decoded = await decode({ role: "crm", transformation: "emails", value: encodedValue }, ctx);
    expect(await pulumi.isSecret(decoded.decodedValue)).toBe(true);
    expect(await unwrap(decoded.decodedValue)).toBe("ana@example.com");
    expect(await validate({ role: "crm", transformation: "emails", value: encodedValue }, ctx)).toEqual({ valid: true });
    expect(await isTokenized({ role: "crm", transformation: "emails", value: "ana@example.com" }, ctx)).toEqual({ tokenized: true });
    const metadata = await getMetadata({ role: "crm", transformation: "emails", value: encodedValue }, ctx);
    expect(metadata.metadata).toBe("team=crm");
    expect(Date.parse(metadata.expirationTime!)).toBeLessThanOrEqual(Date.now() + 600_000);
    await transformAccess(stack.keep.state).expire("emails", encodedValue);
    expect(await validate({ role: "crm", transformation: "emails", value: encodedValue }, ctx)).toEqual({ valid: false });
    await expect(decode({ role: "crm", transformation: "emails", value: encodedValue }, ctx)).rejects.toThrow(/token not found or expired/);
    expect(await isTokenized({ role: "crm", transformation: "emails", value: "ana@example.com" }, ctx)).toEqual({ tokenized: false });
  });

  test("a snapshot follows continuation over several pages, holding the values present at its start", async () => {
    await encode({ role: "crm", batchInput: Array.from({ length: 9 }, (_, i) => ({ value: `user${i}@example.com`, transformation: "emails" })) }, ctx);
    const count = (await db.query("SELECT 1 FROM public.tokens")).length;
    stack.keep.log.clear();
    const { values } = await snapshot({ transformation: "emails", limit: 4 }, ctx);
    expect(values).toHaveLength(count);
    expect(stack.keep.log.count).toBe(Math.ceil(count / 4));
    const seen: string[] = [];
    for await (const value of iterateSnapshot({ transformation: "emails", limit: 5 }, ctx)) {
      if (seen.length === 0) await encode({ role: "crm", transformation: "emails", value: "late@example.com" }, ctx);
      seen.push(value);
    }
    expect(seen).toHaveLength(count);
  });

  test("FPE round trips: supplied, generated and internal tweaks; a decode format", async () => {
    const supplied = await encode({ role: "crm", transformation: "card", value: "4111-1111-1111-1111", tweak: TWEAK }, ctx);
    expect(supplied.encodedValue).toMatch(/^\d{4}-\d{4}-\d{4}-\d{4}$/);
    expect(supplied.encodedValue).not.toBe("4111-1111-1111-1111");
    expect(await unwrap((await decode({ role: "crm", transformation: "card", value: supplied.encodedValue, tweak: TWEAK }, ctx)).decodedValue)).toBe("4111-1111-1111-1111");
    const generated = await encode({ role: "crm", transformation: "card-generated", value: "4111111111111111" }, ctx);
    expect(generated.tweak).toMatch(/^[A-Za-z0-9+/]{10}==$/);
    expect(await unwrap((await decode({ role: "crm", transformation: "card-generated", value: generated.encodedValue, tweak: generated.tweak }, ctx)).decodedValue)).toBe(
      "4111111111111111",
    );
    const internal = await encode({ role: "crm", transformation: "card-internal", value: "5500000000000004" }, ctx);
    expect((await encode({ role: "crm", transformation: "card-internal", value: "5500000000000004" }, ctx)).encodedValue).toBe(internal.encodedValue);
    expect(await unwrap((await decode({ role: "crm", transformation: "card-internal", value: internal.encodedValue }, ctx)).decodedValue)).toBe("5500000000000004");
    const lastFour = await decode({ role: "crm", transformation: "card-internal", value: internal.encodedValue, decodeFormat: "last-four" }, ctx);
    expect(await unwrap(lastFour.decodedValue)).toBe("0004");
  });

  test("masking hides the captured characters and cannot be decoded", async () => {
    expect((await encode({ role: "crm", transformation: "ssn", value: "123-45-6789" }, ctx)).encodedValue).toBe("***-**-****");
    await expect(decode({ role: "crm", transformation: "ssn", value: "***-**-****" }, ctx)).rejects.toThrow(/keep\.transform\.decode\(role "crm"\) failed: .*returned 400.*masking is one-way/);
  });

  test("a batch longer than one request is split, run a few at a time, and joined in input order with references", async () => {
    const values = Array.from({ length: 250 }, (_, i) => `4${String(i).padStart(15, "0")}`);
    stack.keep.log.clear();
    const encoded = await encode(
      { role: "crm", batchInput: values.map((value, i) => ({ value, transformation: "card", tweak: TWEAK, reference: `#${i}` })), batch: { maxItemsPerRequest: 100, concurrency: 2 } },
      ctx,
    );
    expect(stack.keep.log.count).toBe(3);
    expect(encoded.batchResults.map((r) => r.reference)).toEqual(values.map((_, i) => `#${i}`));
    const decoded = await decode(
      { role: "crm", batchInput: encoded.batchResults.map((r) => ({ value: r.encodedValue, transformation: "card", tweak: TWEAK, reference: r.reference })), batch: { maxRequestBytes: 4096 } },
      ctx,
    );
    const results = await unwrap(decoded.batchResults);
    expect(results.map((r) => r.decodedValue)).toEqual(values);
    expect(results.map((r) => r.reference)).toEqual(values.map((_, i) => `#${i}`));
  });

  test("arguments are checked by their form's schema before any request: a misspelt one, a bad batch item, a snapshot's limit", async () => {
    stack.keep.log.clear();
    const misspelt = await encode({ role: "crm", value: "x", transformaton: "card" } as never, ctx).catch((e: unknown) => e);
    expect(misspelt).toBeInstanceOf(keep.transform.TransformFunctionError);
    expect((misspelt as Error).message).toMatch(/^keep\.transform\.encode: invalid arguments: transformaton: /);
    const badItem = await decode({ role: "crm", batchInput: [{ value: "a" }, { value: 7 as never }] }, ctx).catch((e: unknown) => e);
    expect((badItem as Error).message).toMatch(/^keep\.transform\.decode: invalid arguments: batchInput\[1\]\.value: /);
    const limit = await snapshot({ transformation: "emails", limit: 0 }, ctx).catch((e: unknown) => e);
    expect((limit as Error).message).toMatch(/^keep\.transform\.snapshot: invalid arguments: limit: must be at least 1/);
    expect(stack.keep.log.count).toBe(0);
  });

  test("destroy removes the objects and leaves the tables", async () => {
    await stack.engine.destroy();
    expect(stack.keep.objects.list({ mount: "transform", kind: "stores" })).toEqual([]);
    expect((await db.query("SELECT 1 FROM public.tokens")).length).toBeGreaterThan(0);
  });
});

/** The plain value of an Output (secret or not). */
function unwrap<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply((v) => resolve(v)));
}
