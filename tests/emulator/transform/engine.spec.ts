/**
 * The transform engine of the secrets-service emulator over raw HTTP: its tables' routes, roles
 * and allowed roles, FPE (real FF3-1) with each tweak source and format, masking, tokenization with
 * TTL and metadata, snapshots, built-ins, and a store that cannot be reached.
 */
import { KeepEmulator, startKeepEmulator } from "../../../emulator/keep";
import { transformAccess } from "../../../emulator/keep/transform";
import { Ff31 } from "../../../emulator/keep/transform/ff3-1";

let keep: KeepEmulator;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${keep.url}/v1/${path}`, {
    method,
    headers: { "X-Keep-Token": keep.rootToken },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
const post = (path: string, body: unknown = {}) => call("POST", path, body);
const data = async (path: string, body: unknown = {}) => {
  const r = await post(path, body);
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
};
const TWEAK = Buffer.from("01020304050607", "hex").toString("base64");

beforeAll(async () => {
  keep = await startKeepEmulator();
  keep.mount("tx", "transform");
  await post("tx/template/card", {
    type: "regex",
    pattern: "(\\d{4})-?(\\d{4})-?(\\d{4})-?(\\d{4})",
    alphabet: "builtin/numeric",
    encode_format: "$1-$2-$3-$4",
    decode_formats: { "last-four": "$4", grouped: "${1} ${2} ${3} ${4}" },
  });
  await post("tx/transformations/fpe/card-supplied", { template: "card", tweak_source: "supplied", allowed_roles: ["payments"] });
  await post("tx/transformations/fpe/card-generated", { template: "builtin/creditcardnumber", tweak_source: "generated", allowed_roles: ["pay*"] });
  await post("tx/transformations/fpe/card-internal", { template: "builtin/creditcardnumber", tweak_source: "internal", allowed_roles: ["*"] });
  await post("tx/transformations/masking/ssn", { template: "builtin/socialsecuritynumber", masking_character: "#", allowed_roles: ["payments"] });
  await post("tx/transformations/tokenization/tokens", { max_ttl: "1h", allowed_roles: ["payments"] });
  await post("tx/role/payments", { transformations: ["card-supplied", "card-generated", "card-internal", "ssn", "tokens"] });
});
afterAll(() => keep.close());

describe("tables", () => {
  test("reads answer the spec's fields; the type-specific write is read at transformation/:name", async () => {
    expect((await call("GET", "tx/transformation/card-supplied")).body.data).toEqual({
      type: "fpe",
      templates: ["card"],
      tweak_source: "supplied",
      allowed_roles: ["payments"],
    });
    expect((await call("GET", "tx/transformation/tokens")).body.data).toMatchObject({ type: "tokenization", max_ttl: 3600, mapping_mode: "default", stores: ["builtin/internal"] });
    expect((await call("GET", "tx/template/card")).body.data).toMatchObject({ type: "regex", alphabet: "builtin/numeric", encode_format: "$1-$2-$3-$4" });
    expect((await call("GET", "tx/transformation?list=true")).body.data.keys).toEqual(["card-generated", "card-internal", "card-supplied", "ssn", "tokens"]);
  });

  test("a transformation's type is immutable, and each type takes only its own parameters", async () => {
    const changed = await post("tx/transformations/masking/card-supplied", { template: "card" });
    expect(changed.status).toBe(400);
    expect(changed.body.errors[0]).toMatch(/immutable/);
    const foreign = await post("tx/transformations/fpe/x", { template: "card", masking_character: "#" });
    expect(foreign).toEqual({ status: 400, body: { errors: ["masking_character: not parameters of a fpe transformation"] } });
  });

  test("the deprecated generic write creates a transformation of any type", async () => {
    expect((await post("tx/transformation/old-mask", { type: "masking", template: "builtin/socialsecuritynumber" })).status).toBe(204);
    expect((await call("GET", "tx/transformation/old-mask")).body.data).toMatchObject({ type: "masking", masking_character: "*" });
    await call("DELETE", "tx/transformation/old-mask");
    expect((await call("GET", "tx/transformation/old-mask")).status).toBe(404);
  });

  test("templates: the pattern must compile in the service's dialect with a group; formats name existing groups", async () => {
    const write = (body: object) => post("tx/template/t", { type: "regex", alphabet: "builtin/numeric", ...body });
    expect((await write({ pattern: "(?=\\d)(\\d+)" })).body.errors[0]).toMatch(/lookaround/);
    expect((await write({ pattern: "(\\d)\\1" })).body.errors[0]).toMatch(/backreference/);
    expect((await write({ pattern: "\\d+" })).body.errors[0]).toMatch(/at least one capture group/);
    expect((await write({ pattern: "(\\d+)", encode_format: "$2" })).body.errors[0]).toMatch(/encode_format refers to groups the pattern does not have: 2/);
    expect((await write({ pattern: "(?P<all>\\d+)", decode_formats: { x: "${all}" } })).status).toBe(204);
  });

  test("alphabets: two characters at least, none repeated; built-ins are readable and fixed", async () => {
    expect((await post("tx/alphabet/a", { alphabet: "a" })).status).toBe(400);
    expect((await post("tx/alphabet/a", { alphabet: "abca" })).body.errors[0]).toMatch(/repeat/);
    expect((await post("tx/alphabet/a", { alphabet: "abc" })).status).toBe(204);
    expect((await call("GET", "tx/alphabet/builtin/numeric")).body.data).toEqual({ alphabet: "0123456789" });
    expect((await call("GET", "tx/template/builtin/creditcardnumber")).body.data.alphabet).toBe("builtin/numeric");
    expect((await post("tx/alphabet/builtin/numeric", { alphabet: "01" })).status).toBe(400);
  });

  test("LIST role takes a glob filter", async () => {
    await post("tx/role/audit-east", { transformations: [] });
    await post("tx/role/audit-west", { transformations: [] });
    expect((await call("GET", "tx/role?list=true&filter=audit-*")).body.data.keys).toEqual(["audit-east", "audit-west"]);
    expect((await call("GET", "tx/role?list=true")).body.data.keys).toEqual(["audit-east", "audit-west", "payments"]);
    expect((await call("GET", "tx/role?list=true&filter=nobody*")).status).toBe(404);
  });

  test("stores: the connection string needs both slots, MySQL needs parseTime=true", async () => {
    const store = (body: object) => post("tx/stores/db", { type: "sql", driver: "postgres", username: "u", password: "p", ...body });
    expect((await store({ connection_string: "postgresql://{{username}}@h/db" })).body.errors[0]).toMatch(/\{\{password\}\}/);
    expect((await store({ driver: "mysql", connection_string: "{{username}}:{{password}}@tcp(h)/db" })).body.errors[0]).toMatch(/parseTime=true/);
    expect((await store({ connection_string: "postgresql://{{username}}:{{password}}@h/db" })).status).toBe(204);
    expect((await call("GET", "tx/stores/db")).body.data).toEqual({
      type: "sql",
      connection_string: "postgresql://{{username}}:{{password}}@h/db",
      supported_transformations: ["tokenization"],
    });
  });
});

describe("encoding through a role", () => {
  test("a role the transformation does not allow is refused with 400", async () => {
    await post("tx/role/other", { transformations: ["card-supplied"] });
    const refused = await post("tx/encode/other", { value: "4111111111111111", tweak: TWEAK });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatch(/allowed_roles/);
    expect((await post("tx/encode/payments", { value: "4111111111111111" })).body.errors[0]).toMatch(/transformation must be given/);
  });

  test("FPE with a supplied tweak is FF3-1 over the alphabet: the encode format applies, decode gives the original back", async () => {
    const encoded = await data("tx/encode/payments", { transformation: "card-supplied", value: "4111111111111111", tweak: TWEAK });
    expect(encoded.encoded_value).toMatch(/^\d{4}-\d{4}-\d{4}-\d{4}$/);
    // The oracle: the same cipher over the captured digits, with the transformation's key.
    const stored = keep.objects.read<{ key: string }>({ mount: "tx", kind: "transformation", name: "card-supplied" })!;
    const expected = new Ff31(Buffer.from(stored.key, "base64"), "0123456789").encrypt("4111111111111111", Buffer.from(TWEAK, "base64"));
    expect(encoded.encoded_value.replace(/-/g, "")).toBe(expected);
    const decode = (path: string) => data(path, { transformation: "card-supplied", value: encoded.encoded_value, tweak: TWEAK });
    expect((await decode("tx/decode/payments")).decoded_value).toBe("4111-1111-1111-1111");
    expect((await decode("tx/decode/payments/last-four")).decoded_value).toBe("1111");
    expect((await decode("tx/decode/payments/grouped")).decoded_value).toBe("4111 1111 1111 1111");
    const wrongTweak = await post("tx/decode/payments", { transformation: "card-supplied", value: encoded.encoded_value, tweak: Buffer.from("07060504030201", "hex").toString("base64") });
    expect(wrongTweak.body.data.decoded_value).not.toBe("4111-1111-1111-1111");
    expect((await post("tx/encode/payments", { transformation: "card-supplied", value: "4111111111111111" })).body.errors[0]).toMatch(/tweak is required/);
  });

  test("FPE with a generated tweak returns it, and decoding needs it", async () => {
    const encoded = await data("tx/encode/payments", { transformation: "card-generated", value: "4111 1111 1111 1111" });
    expect(Buffer.from(encoded.tweak, "base64")).toHaveLength(7);
    expect(encoded.encoded_value).toMatch(/^\d{4} \d{4} \d{4} \d{4}$/);
    const decoded = await data("tx/decode/payments", { transformation: "card-generated", value: encoded.encoded_value, tweak: encoded.tweak });
    expect(decoded.decoded_value).toBe("4111 1111 1111 1111");
  });

  test("FPE with the internal tweak: the same value encodes the same way, and decodes without a tweak", async () => {
    const a = await data("tx/encode/payments", { transformation: "card-internal", value: "5500000000000004" });
    const b = await data("tx/encode/payments", { transformation: "card-internal", value: "5500000000000004" });
    expect(a.encoded_value).toBe(b.encoded_value);
    expect(a.encoded_value).not.toBe("5500000000000004");
    expect((await data("tx/decode/payments", { transformation: "card-internal", value: a.encoded_value })).decoded_value).toBe("5500000000000004");
  });

  test("masking overwrites the captured characters and cannot decode", async () => {
    expect((await data("tx/encode/payments", { transformation: "ssn", value: "SSN 123-45-6789." })).encoded_value).toBe("SSN ###-##-####.");
    expect((await post("tx/decode/payments", { transformation: "ssn", value: "###-##-####" })).body.errors[0]).toMatch(/cannot decode/);
  });

  test("batches answer in input order and echo references", async () => {
    const values = Array.from({ length: 20 }, (_, i) => `41111111111${String(i).padStart(5, "0")}`);
    const encoded = await data("tx/encode/payments", {
      batch_input: values.map((value, i) => ({ value, transformation: "card-internal", reference: `r${i}` })),
    });
    expect(encoded.batch_results.map((r: any) => r.reference)).toEqual(values.map((_, i) => `r${i}`));
    const decoded = await data("tx/decode/payments", {
      batch_input: encoded.batch_results.map((r: any) => ({ value: r.encoded_value, transformation: "card-internal", reference: r.reference })),
    });
    expect(encoded.batch_results.map((r: any) => r.encoded_value)).not.toEqual(values);
    expect(decoded.batch_results.map((r: any) => r.encoded_value)).toEqual(values);
    expect(decoded.batch_results.map((r: any) => r.reference)).toEqual(values.map((_, i) => `r${i}`));
  });
});

describe("tokenization", () => {
  test("tokens are random; validate, tokenized, metadata and decode", async () => {
    const a = await data("tx/encode/payments", { transformation: "tokens", value: "alice@example.com", metadata: "team=crm,owner=ana", ttl: "10m" });
    const b = await data("tx/encode/payments", { transformation: "tokens", value: "alice@example.com" });
    expect(a.encoded_value).not.toBe(b.encoded_value);
    expect(await data("tx/validate/payments", { transformation: "tokens", value: a.encoded_value })).toEqual({ valid: true });
    expect(await data("tx/validate/payments", { transformation: "tokens", value: "not-a-token" })).toEqual({ valid: false });
    expect(await data("tx/tokenized/payments", { transformation: "tokens", value: "alice@example.com" })).toEqual({ tokenized: true });
    expect(await data("tx/tokenized/payments", { transformation: "tokens", value: "bob@example.com" })).toEqual({ tokenized: false });
    const metadata = await data("tx/metadata/payments", { transformation: "tokens", value: a.encoded_value });
    expect(metadata.metadata).toBe("team=crm,owner=ana");
    expect(Date.parse(metadata.expiration_time) - Date.now()).toBeLessThanOrEqual(600_000);
    // No ttl given: the transformation's max_ttl (1h) applies.
    const capped = await data("tx/metadata/payments", { transformation: "tokens", value: b.encoded_value });
    expect(Date.parse(capped.expiration_time) - Date.now()).toBeGreaterThan(600_000);
    expect((await data("tx/decode/payments", { transformation: "tokens", value: a.encoded_value })).decoded_value).toBe("alice@example.com");
    expect((await post("tx/validate/payments", { transformation: "card-internal", value: "x" })).status).toBe(400);
  });

  test("an expired token neither validates nor decodes", async () => {
    const token = (await data("tx/encode/payments", { transformation: "tokens", value: "short-lived", ttl: 1 })).encoded_value;
    expect(await data("tx/validate/payments", { transformation: "tokens", value: token })).toEqual({ valid: true });
    await transformAccess(keep.state).expire("tokens", token, { mount: "tx" });
    expect(await data("tx/validate/payments", { transformation: "tokens", value: token })).toEqual({ valid: false });
    expect((await post("tx/decode/payments", { transformation: "tokens", value: token })).body.errors).toEqual(["token not found or expired"]);
  });

  test("a snapshot pages through the values present at its first call", async () => {
    await post("tx/transformations/tokenization/snap", { allowed_roles: ["snap"] });
    await post("tx/role/snap", { transformations: ["snap"] });
    await data("tx/encode/snap", { batch_input: Array.from({ length: 7 }, (_, i) => ({ value: `v${i}` })) });
    const first = await data("tx/transformations/tokenization/snapshot/snap", { limit: 3 });
    expect(first.values).toHaveLength(3);
    await data("tx/encode/snap", { value: "added later" });
    const second = await data("tx/transformations/tokenization/snapshot/snap", { limit: 3, continuation: first.continuation });
    const third = await data("tx/transformations/tokenization/snapshot/snap", { limit: 3, continuation: second.continuation });
    expect(third.values).toHaveLength(1);
    expect(third.continuation).toBeUndefined();
    const all = [...first.values, ...second.values, ...third.values].map((v: string) => JSON.parse(Buffer.from(v, "base64").toString()));
    expect(new Set(all.map((v) => v.token_hash)).size).toBe(7);
  });
});

test("a store that cannot be reached answers an error quickly, not a hang", async () => {
  await post("tx/stores/gone", { type: "sql", driver: "postgres", connection_string: "postgresql://{{username}}:{{password}}@127.0.0.1:1/db", username: "u", password: "p" });
  const schema = await post("tx/stores/gone/schema", { username: "admin", password: "pw" });
  expect(schema.status).toBe(500);
  expect(schema.body.errors[0]).toMatch(/store "gone": .*ECONNREFUSED/);
});
