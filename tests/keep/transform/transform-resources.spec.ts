/**
 * keep.transform resources through the real provider host against the emulator: preview without
 * requests, up, no-op, change, drift + refresh + up, adoption, replacement on a type change, the
 * rules preview refuses, the store password by reference, destroy.
 */
import { keep } from "pulumi-keepstack";
import { EngineError, summarize } from "../../../harness";
import { KeepStack, startKeepStack } from "../../support/keep-stack";

const MOUNT = "tx";
const CARD = "(\\d{4})-?(\\d{4})-?(\\d{4})-?(\\d{4})";
const STORE_PASSWORD = "s3cret-store-password";

interface Shape {
  alphabet?: string;
  pattern?: string;
  roleTransformations?: string[];
  cardType?: "fpe" | "masking";
  tweakSource?: "supplied" | "generated" | "internal";
}

const program = (shape: Shape = {}) => () => {
  const alphabet = new keep.transform.Alphabet("hex", { mount: MOUNT, name: "hex", alphabet: shape.alphabet ?? "0123456789abcdef" });
  const template = new keep.transform.Template("card", {
    mount: MOUNT,
    name: "card",
    pattern: shape.pattern ?? CARD,
    alphabet: "builtin/numeric",
    encodeFormat: "$1-$2-$3-$4",
    decodeFormats: { "last-four": "$4" },
  });
  const cardType = shape.cardType ?? "fpe";
  const card = new keep.transform.Transformation(
    "card",
    cardType === "fpe"
      ? { mount: MOUNT, name: "card", type: "fpe", template: template.name, tweakSource: shape.tweakSource ?? "internal", allowedRoles: ["payments"] }
      : { mount: MOUNT, name: "card", type: "masking", template: template.name, maskingCharacter: "#", allowedRoles: ["payments"] },
  );
  const store = new keep.transform.Store("db", {
    mount: MOUNT,
    name: "db",
    driver: "postgres",
    connectionString: "postgresql://{{username}}:{{password}}@127.0.0.1:1/tokens",
    username: "tokens",
    password: { fromEnv: "STORE_PASSWORD" },
  });
  const tokens = new keep.transform.Transformation("tokens", {
    mount: MOUNT,
    name: "tokens",
    type: "tokenization",
    maxTtl: "24h",
    stores: [store.name],
    allowedRoles: ["payments"],
  });
  const role = new keep.transform.Role(
    "payments",
    { mount: MOUNT, name: "payments", transformations: shape.roleTransformations ?? ["card", "tokens"] },
    { dependsOn: [card, tokens] },
  );
  return { alphabet: alphabet.id, template: template.id, card: card.id, templates: card.templates, role: role.id, store: store.id };
};

const view = (stack: KeepStack, kind: string, name: string) => stack.keep.objects.view<Record<string, unknown>>({ mount: MOUNT, kind, name });

describe("keep.transform resources", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack({ engine: { env: { STORE_PASSWORD } } });
    stack.keep.mount(MOUNT, "transform");
  });
  afterAll(() => stack.close());

  test("preview of a new stack plans the creates and sends no request", async () => {
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(program())).steps)).toEqual({ create: 6 });
    expect(stack.keep.log.count).toBe(0);
  });

  test("up creates each object at its path; IDs are <mount>/<kind>/<name>; the read's templates are an output", async () => {
    const result = await stack.engine.up(program());
    expect(summarize(result.steps)).toEqual({ create: 6 });
    expect(result.outputs).toEqual({
      alphabet: "tx/alphabet/hex",
      template: "tx/template/card",
      card: "tx/transformation/card",
      templates: ["card"],
      role: "tx/role/payments",
      store: "tx/stores/db",
    });
    expect(view(stack, "alphabet", "hex")).toEqual({ alphabet: "0123456789abcdef" });
    expect(view(stack, "transformation", "card")).toMatchObject({ type: "fpe", templates: ["card"], tweak_source: "internal" });
    expect(view(stack, "transformation", "tokens")).toMatchObject({ type: "tokenization", max_ttl: 86400, stores: ["db"] });
    expect(stack.keep.objects.read<Record<string, unknown>>({ mount: MOUNT, kind: "stores", name: "db" })).toMatchObject({ username: "tokens", password: STORE_PASSWORD });
  });

  test("the store password given by reference never enters state", async () => {
    const state = JSON.stringify(stack.engine.exportState());
    expect(state).not.toContain(STORE_PASSWORD);
    expect(state).toContain('"fromEnv":"STORE_PASSWORD"');
  });

  test("a second preview and up change nothing; preview sends no request", async () => {
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(program())).steps)).toEqual({ same: 6 });
    expect(stack.keep.log.count).toBe(0);
    expect(summarize((await stack.engine.up(program())).steps)).toEqual({ same: 6 });
  });

  test("a refresh with nothing changed on the service reports no drift (service defaults are not drift)", async () => {
    const refreshed = await stack.engine.refresh();
    expect(refreshed.steps.filter((s) => (s.diffs ?? []).length > 0)).toEqual([]);
  });

  test("changes are applied in place", async () => {
    const preview = await stack.engine.preview(program({ alphabet: "0123456789ABCDEF", roleTransformations: ["card"] }));
    expect(preview.steps.filter((s) => s.op === "update").map((s) => [s.name, s.diffs])).toEqual([
      ["hex", ["alphabet"]],
      ["payments", ["transformations"]],
    ]);
    await stack.engine.up(program({ alphabet: "0123456789ABCDEF", roleTransformations: ["card"] }));
    expect(view(stack, "alphabet", "hex")).toEqual({ alphabet: "0123456789ABCDEF" });
    expect(view(stack, "role", "payments")).toEqual({ transformations: ["card"] });
  });

  test("drift is seen on refresh and the next up restores the declared values", async () => {
    stack.keep.objects.change({ mount: MOUNT, kind: "template", name: "card" }, { pattern: "(\\d{4})(\\d{4})(\\d{4})(\\d{4})" });
    stack.keep.objects.change({ mount: MOUNT, kind: "transformation", name: "card" }, { tweak_source: "generated" });
    const refreshed = await stack.engine.refresh();
    expect(refreshed.steps.filter((s) => (s.diffs ?? []).length > 0).map((s) => [s.name, s.diffs])).toEqual([
      ["card", ["pattern"]],
      ["card", ["tweakSource"]],
    ]);
    const shape = { alphabet: "0123456789ABCDEF", roleTransformations: ["card"] };
    expect(summarize((await stack.engine.up(program(shape))).steps)).toEqual({ same: 4, update: 2 });
    expect(view(stack, "template", "card")?.pattern).toBe(CARD);
    expect(view(stack, "transformation", "card")?.tweak_source).toBe("internal");
  });

  test("a type change replaces the transformation (the service's type is immutable)", async () => {
    const shape: Shape = { alphabet: "0123456789ABCDEF", roleTransformations: ["card"], cardType: "masking" };
    const result = await stack.engine.up(program(shape));
    const replaced = result.steps.find((s) => s.op === "replace");
    expect(replaced).toMatchObject({ name: "card", replaces: ["type"] });
    expect(view(stack, "transformation", "card")).toMatchObject({ type: "masking", masking_character: "#" });
  });

  test("adoption takes an existing object into state and converges it", async () => {
    stack.keep.objects.write({ mount: MOUNT, kind: "alphabet", name: "legacy" }, { alphabet: "xyz" });
    const result = await stack.engine.up(() => {
      program({ alphabet: "0123456789ABCDEF", roleTransformations: ["card"], cardType: "masking" })();
      new keep.transform.Alphabet("legacy", { mount: MOUNT, name: "legacy", alphabet: "uvwxyz", adopt: true });
    });
    expect(result.steps.find((s) => s.name === "legacy")?.op).toBe("create");
    expect(view(stack, "alphabet", "legacy")).toEqual({ alphabet: "uvwxyz" });
  });

  test("a built-in template is adopted, never created", async () => {
    const error = (await stack.engine.preview(() => new keep.transform.Template("cc", { mount: MOUNT, name: "builtin/creditcardnumber", pattern: "(\\d+)" })).catch((e) => e)) as EngineError;
    expect(error.message).toMatch(/name: names the built-in template builtin\/creditcardnumber, which the service makes itself/);
  });

  test("destroy deletes every object", async () => {
    await stack.engine.destroy();
    for (const kind of ["alphabet", "template", "transformation", "role", "stores"]) {
      expect(stack.keep.objects.list({ mount: MOUNT, kind })).toEqual([]);
    }
  });
});

describe("keep.transform rules, refused in preview", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack();
  });
  afterAll(() => stack.close());

  const previewError = async (program: () => unknown): Promise<string> => {
    stack.keep.log.clear();
    const error = (await stack.engine.preview(program).catch((e) => e)) as EngineError;
    expect(error).toBeInstanceOf(EngineError);
    expect(stack.keep.log.count).toBe(0);
    return error.message;
  };

  test("an alphabet needs two characters, none repeated", async () => {
    expect(await previewError(() => new keep.transform.Alphabet("a", { name: "a", alphabet: "x" }))).toMatch(/alphabet: must have at least two characters/);
    expect(await previewError(() => new keep.transform.Alphabet("a", { name: "a", alphabet: "abcb" }))).toMatch(/alphabet: must not repeat a character: "b"/);
  });

  test("a template's pattern must be of the service's dialect with a group; formats name existing groups", async () => {
    const template = (extra: Record<string, unknown>) => () => new keep.transform.Template("t", { name: "t", pattern: "(\\d+)", ...extra });
    expect(await previewError(template({ pattern: "(?<=x)(\\d+)" }))).toMatch(/pattern: is not a regular expression of the service's dialect: invalid named capture: `\(\?<=x\)\(\\d\+\)` \(the service's regular expressions have no lookahead or lookbehind\)/);
    expect(await previewError(template({ pattern: "(a)\\1" }))).toMatch(/pattern: .*backreference/);
    expect(await previewError(template({ pattern: "\\d+" }))).toMatch(/pattern: must have at least one capture group/);
    expect(await previewError(template({ encodeFormat: "$1-$2" }))).toMatch(/encodeFormat: refers to \$2, which the pattern has no group for/);
    expect(await previewError(template({ decodeFormats: { tail: "${last}" } }))).toMatch(/decodeFormats\.tail: refers to \$last/);
  });

  test("each transformation type takes only its own parameters", async () => {
    expect(
      await previewError(() => new keep.transform.Transformation("t", { name: "t", type: "masking", template: "x", tweakSource: "internal" })),
    ).toMatch(/tweakSource: is a parameter of fpe transformations, not of a masking one/);
    expect(await previewError(() => new keep.transform.Transformation("t", { name: "t", type: "tokenization", template: "x" }))).toMatch(
      /template: is a parameter of fpe and masking transformations, not of a tokenization one/,
    );
    expect(await previewError(() => new keep.transform.Transformation("t", { name: "t", type: "fpe" }))).toMatch(/template: is required for a fpe transformation/);
    expect(await previewError(() => new keep.transform.Transformation("t", { name: "t", type: "masking", template: "x", maskingCharacter: "##" }))).toMatch(
      /maskingCharacter: must be exactly one character/,
    );
  });

  test("a store's connection string holds both slots; a MySQL one sets parseTime=true", async () => {
    const store = (driver: "postgres" | "mysql", connectionString: string) => () =>
      new keep.transform.Store("s", { name: "s", driver, connectionString, username: "u", password: "p" });
    expect(await previewError(store("postgres", "postgresql://{{username}}@db/tokens"))).toMatch(/connectionString: must contain the \{\{password\}\} slot/);
    expect(await previewError(store("mysql", "{{username}}:{{password}}@tcp(db:3306)/tokens"))).toMatch(/connectionString: must set parseTime=true/);
  });

  test("unknown values pass preview and are checked once known", async () => {
    // An input from a resource that does not exist yet is unknown in preview.
    const result = await stack.engine.preview(() => {
      const alphabet = new keep.transform.Alphabet("a", { name: "a", alphabet: "0123456789" });
      new keep.transform.Template("t", { name: "t", pattern: alphabet.id.apply(() => "(\\d+)-(\\d+)"), encodeFormat: "$2" });
    });
    expect(summarize(result.steps)).toEqual({ create: 2 });
  });

  test("maxTtl takes whole days, as the service does; a duration it does not take is refused naming the field", async () => {
    expect(await previewError(() => new keep.transform.Transformation("t", { name: "t", type: "tokenization", maxTtl: "1w" }))).toMatch(
      /maxTtl: must be a number of seconds, a duration such as "24h" or "90m", or days such as "365d"/,
    );
    const yearly = () => new keep.transform.Transformation("yearly", { name: "yearly", type: "tokenization", maxTtl: "365d" });
    await stack.engine.up(yearly);
    expect(stack.keep.objects.read({ mount: "transform", kind: "transformation", name: "yearly" })).toMatchObject({ max_ttl: 365 * 86400 });
    // "365d", 31536000 and "8760h" are the same length: no change.
    const again = await stack.engine.preview(() => new keep.transform.Transformation("yearly", { name: "yearly", type: "tokenization", maxTtl: "8760h" }));
    expect(summarize(again.steps)).toEqual({ same: 1 });
    await stack.engine.destroy();
  });

  test("exportable mapping mode warns at apply", async () => {
    const result = await stack.engine.up(() => new keep.transform.Transformation("t", { name: "t", type: "tokenization", mappingMode: "exportable" }));
    expect(result.diagnostics.join("\n")).toMatch(/mapping mode `exportable` lets anyone allowed to export decode every value/);
    await stack.engine.destroy();
  });
});
