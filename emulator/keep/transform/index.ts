/**
 * Transform engine of the secrets service emulator, type `transform`, mounted anywhere
 * (`keep.mount("transform", "transform")`). Roles, transformations (type-specific writes and the
 * deprecated generic one), templates, alphabets and SQL stores as collections; built-in alphabets
 * and templates under `builtin/`; encode, decode, validate, tokenized, metadata (one value or a
 * batch); tokenization snapshots; `stores/:name/schema` running real DDL.
 *
 * The cryptography and the databases are real: FPE is FF3-1 with an AES-256 key per
 * transformation, and a SQL store is reached with `pg` at its connection string.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { addCollection } from "../collection";
import { RequestBody, readDuration, readEnum, readInteger, readString, readStringList } from "../fields";
import { KeepError, badRequest, engineReply, notFound } from "../replies";
import type { KeepEngine, KeepRequest, KeepRouter } from "../router";
import type { KeepMount, KeepState } from "../state";
import { BUILTIN_ALPHABETS, BUILTIN_PREFIX, BUILTIN_TEMPLATES, INTERNAL_STORE } from "./builtins";
import { expiredOrUnknown, fpeDecode, fpeEncode, isLive, mask, tokenHash, tokenize, unseal, valueHash } from "./codec";
import {
  KINDS,
  MAPPING_MODES,
  StoredAlphabet,
  StoredRole,
  StoredStore,
  StoredTemplate,
  StoredTransformation,
  TRANSFORMATION_TYPES,
  TWEAK_SOURCES,
  TransformationType,
} from "./model";
import { PatternSyntaxError, compileGoPattern, unknownReferences } from "./pattern";
import { MemoryTokenStore, SqlPools, TokenRecord, TokenStore, checkConnectionString, createStoreSchema } from "./token-stores";

export type { StoredAlphabet, StoredRole, StoredStore, StoredTemplate, StoredTransformation } from "./model";
export type { TokenRecord } from "./token-stores";
export { BUILTIN_ALPHABETS, BUILTIN_TEMPLATES } from "./builtins";

export const TRANSFORM_ENGINE = "transform";

const SNAPSHOT_LIMIT = 1000;

// ---------------------------------------------------------------------------------------------
// State of the engine: token stores and snapshots per mount, SQL pools for the whole emulator.

const sqlPoolsOf = (state: KeepState) => state.moduleState("transform.sql-pools", () => new SqlPools());
const memoryStoreOf = (mount: KeepMount) => mount.moduleState("transform.tokens", () => new MemoryTokenStore());

interface Snapshot {
  transformation: string;
  keys: string[];
}
const snapshotsOf = (mount: KeepMount) => mount.moduleState("transform.snapshots", () => new Map<string, Snapshot>());

function tokenStoreOf(state: KeepState, mount: KeepMount, name: string): TokenStore {
  if (name === INTERNAL_STORE) return memoryStoreOf(mount);
  const stored = mount.store.get<StoredStore>(KINDS.store, name);
  if (!stored) throw badRequest(`store "${name}" does not exist`);
  return sqlPoolsOf(state).storeFor(mount, name, stored);
}

// ---------------------------------------------------------------------------------------------
// Reading request fields.

function readStringMap(body: RequestBody, field: string): Record<string, string> | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) throw badRequest(`'${field}' must be an object`);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
}

/** Globs of `allowed_roles` and of the role list's `filter`: `*` stands for any characters. */
function globMatches(glob: string, name: string): boolean {
  const re = new RegExp(`^${glob.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
  return re.test(name);
}

// ---------------------------------------------------------------------------------------------
// Lookups of the objects an operation uses.

function templateIn(mount: KeepMount, name: string): StoredTemplate | undefined {
  return name.startsWith(BUILTIN_PREFIX) ? BUILTIN_TEMPLATES[name] : mount.store.get<StoredTemplate>(KINDS.template, name);
}

function alphabetIn(mount: KeepMount, name: string): StoredAlphabet | undefined {
  return name.startsWith(BUILTIN_PREFIX) ? BUILTIN_ALPHABETS[name] : mount.store.get<StoredAlphabet>(KINDS.alphabet, name);
}

function requireTemplate(mount: KeepMount, name: string): StoredTemplate {
  const template = templateIn(mount, name);
  if (!template) throw badRequest(`template "${name}" does not exist`);
  return template;
}

/** The transformation a request names through a role, once the role and the transformation allow it. */
function resolveTransformation(request: KeepRequest, roleName: string, named: string | undefined): { name: string; transformation: StoredTransformation } {
  const store = request.mount.store;
  const role = store.get<StoredRole>(KINDS.role, roleName);
  if (!role) throw badRequest(`role "${roleName}" does not exist`);
  let name = named;
  if (!name) {
    if (role.transformations.length !== 1) throw badRequest(`transformation must be given: role "${roleName}" has ${role.transformations.length} transformations`);
    name = role.transformations[0];
  }
  if (!role.transformations.includes(name)) throw badRequest(`transformation "${name}" is not part of role "${roleName}"`);
  const transformation = store.get<StoredTransformation>(KINDS.transformation, name);
  if (!transformation) throw badRequest(`transformation "${name}" does not exist`);
  if (!transformation.allowed_roles.some((glob) => globMatches(glob, roleName))) {
    throw badRequest(`role "${roleName}" is not in the allowed_roles of transformation "${name}"`);
  }
  return { name, transformation };
}

function fpeParts(mount: KeepMount, transformation: StoredTransformation): { template: StoredTemplate; alphabet: string } {
  const template = requireTemplate(mount, transformation.templates[0]);
  if (!template.alphabet) throw badRequest(`template "${transformation.templates[0]}" names no alphabet, which FPE needs`);
  const alphabet = alphabetIn(mount, template.alphabet);
  if (!alphabet) throw badRequest(`alphabet "${template.alphabet}" does not exist`);
  return { template, alphabet: alphabet.alphabet };
}

// ---------------------------------------------------------------------------------------------
// Transformations: the type-specific writes, the deprecated generic one, reads.

const DEFAULTS: Omit<StoredTransformation, "type" | "id" | "key" | "internal_tweak"> = {
  templates: [],
  tweak_source: "supplied",
  masking_character: "*",
  mapping_mode: "default",
  max_ttl: 0,
  allowed_roles: [],
  stores: [INTERNAL_STORE],
};

/** The parameters each type takes; the others are refused. */
const PARAMETERS: Record<TransformationType, readonly string[]> = {
  fpe: ["template", "tweak_source", "allowed_roles"],
  masking: ["template", "masking_character", "allowed_roles"],
  tokenization: ["mapping_mode", "max_ttl", "allowed_roles", "stores"],
};
const ALL_PARAMETERS = [...new Set(Object.values(PARAMETERS).flat())];

function parseTransformation(request: KeepRequest, type: TransformationType, existing: StoredTransformation | undefined, generic: boolean): StoredTransformation {
  const body = request.body;
  if (existing && existing.type !== type) throw badRequest(`transformation type is immutable: it is ${existing.type}, not ${type}`);
  if (!generic) {
    const foreign = ALL_PARAMETERS.filter((p) => body[p] !== undefined && body[p] !== null && !PARAMETERS[type].includes(p));
    if (foreign.length) throw badRequest(`${foreign.join(", ")}: not parameters of a ${type} transformation`);
  }
  const base = existing ?? {
    ...DEFAULTS,
    type,
    id: randomUUID(),
    key: randomBytes(32).toString("base64"),
    internal_tweak: randomBytes(7).toString("base64"),
  };
  const next: StoredTransformation = { ...base, allowed_roles: readStringList(body, "allowed_roles") ?? base.allowed_roles };
  if (type === "fpe" || type === "masking") {
    const template = existing ? readString(body, "template") : readString(body, "template", { required: true });
    if (template !== undefined) {
      requireTemplate(request.mount, template);
      next.templates = [template];
    }
  }
  if (type === "fpe") next.tweak_source = readEnum(body, "tweak_source", TWEAK_SOURCES) ?? base.tweak_source;
  if (type === "masking") {
    const character = readString(body, "masking_character");
    if (character !== undefined) next.masking_character = Array.from(character)[0];
  }
  if (type === "tokenization") {
    next.mapping_mode = readEnum(body, "mapping_mode", MAPPING_MODES) ?? base.mapping_mode;
    next.max_ttl = readDuration(body, "max_ttl") ?? base.max_ttl;
    const stores = readStringList(body, "stores");
    if (stores !== undefined) {
      if (stores.length === 0) throw badRequest("stores must name at least one store");
      for (const store of stores) {
        if (store === INTERNAL_STORE) continue;
        const found = request.mount.store.get<StoredStore>(KINDS.store, store);
        if (!found) throw badRequest(`store "${store}" does not exist`);
        if (!found.supported_transformations.includes("tokenization")) throw badRequest(`store "${store}" does not support tokenization`);
      }
      next.stores = stores;
    }
  }
  return next;
}

function viewTransformation(t: StoredTransformation): Record<string, unknown> {
  const view: Record<string, unknown> = { type: t.type, allowed_roles: [...t.allowed_roles], templates: [...t.templates] };
  if (t.type === "fpe") view.tweak_source = t.tweak_source;
  if (t.type === "masking") view.masking_character = t.masking_character;
  if (t.type === "tokenization") Object.assign(view, { mapping_mode: t.mapping_mode, max_ttl: t.max_ttl, stores: [...t.stores] });
  return view;
}

// ---------------------------------------------------------------------------------------------
// Templates, alphabets, stores.

function parseTemplate(body: RequestBody, existing: StoredTemplate | undefined): StoredTemplate {
  readEnum(body, "type", ["regex"] as const, { required: true });
  const pattern = readString(body, "pattern", { required: true });
  let compiled;
  try {
    compiled = compileGoPattern(pattern);
  } catch (e) {
    if (!(e instanceof PatternSyntaxError)) throw e;
    throw badRequest(`pattern does not compile: ${e.message}`);
  }
  if (compiled.groups === 0) throw badRequest("pattern must have at least one capture group");
  const encodeFormat = readString(body, "encode_format") ?? existing?.encode_format ?? "";
  const decodeFormats = readStringMap(body, "decode_formats") ?? existing?.decode_formats ?? {};
  for (const [what, format] of [["encode_format", encodeFormat], ...Object.entries(decodeFormats).map(([k, v]) => [`decode_formats.${k}`, v])]) {
    const missing = unknownReferences(compiled, format);
    if (missing.length) throw badRequest(`${what} refers to groups the pattern does not have: ${missing.join(", ")}`);
  }
  return { type: "regex", pattern, alphabet: readString(body, "alphabet") ?? existing?.alphabet ?? "", encode_format: encodeFormat, decode_formats: decodeFormats };
}

function parseAlphabet(body: RequestBody): StoredAlphabet {
  const alphabet = readString(body, "alphabet", { required: true });
  const characters = Array.from(alphabet);
  if (characters.length < 2) throw badRequest("alphabet must have at least two characters");
  if (new Set(characters).size !== characters.length) throw badRequest("alphabet must not repeat a character");
  return { alphabet };
}

function parseStore(body: RequestBody, existing: StoredStore | undefined): StoredStore {
  readEnum(body, "type", ["sql"] as const, { required: true });
  const driver = readEnum(body, "driver", ["postgres", "mysql"] as const, { required: true });
  const connectionString = readString(body, "connection_string", { required: true });
  checkConnectionString(driver, connectionString);
  const schema = readString(body, "schema") ?? existing?.schema ?? "public";
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) throw badRequest(`schema "${schema}" is not a plain SQL identifier`);
  return {
    type: "sql",
    driver,
    connection_string: connectionString,
    username: readString(body, "username", { required: true }),
    password: readString(body, "password", { required: true }),
    supported_transformations: readStringList(body, "supported_transformations") ?? existing?.supported_transformations ?? ["tokenization"],
    schema,
    max_open_connections: readInteger(body, "max_open_connections", { min: 0 }) ?? existing?.max_open_connections ?? 4,
    max_idle_connections: readInteger(body, "max_idle_connections", { min: 0 }) ?? existing?.max_idle_connections ?? 4,
    max_connection_lifetime: readDuration(body, "max_connection_lifetime") ?? existing?.max_connection_lifetime ?? 0,
  };
}

// ---------------------------------------------------------------------------------------------
// Encode, decode, validate, tokenized, metadata.

interface Item {
  value: string;
  transformation?: string;
  ttl?: unknown;
  metadata?: string;
  tweak?: string;
  reference?: string;
}

/** The items of a request: `batch_input` when set (the top-level fields are then ignored), else the top level. */
function itemsOf(body: RequestBody): { items: Item[]; batch: boolean } {
  const batch = body.batch_input;
  if (batch === undefined || batch === null) {
    return { items: [{ ...(body as Record<string, unknown>), value: readString(body, "value", { required: true }) } as Item], batch: false };
  }
  if (!Array.isArray(batch)) throw badRequest("'batch_input' must be an array of objects");
  return {
    batch: true,
    items: batch.map((entry, i) => {
      if (!entry || typeof entry !== "object" || Array.isArray(entry)) throw badRequest(`batch_input[${i}] must be an object`);
      const fields = entry as RequestBody;
      try {
        return {
          value: readString(fields, "value", { required: true }),
          transformation: readString(fields, "transformation"),
          ttl: fields.ttl,
          metadata: readString(fields, "metadata"),
          tweak: readString(fields, "tweak"),
          reference: readString(fields, "reference"),
        };
      } catch (e) {
        throw e instanceof KeepError ? badRequest(`batch_input[${i}]: ${e.errors[0]}`) : e;
      }
    }),
  };
}

type Operation = "encode" | "decode" | "validate" | "tokenized" | "metadata";

/** Runs one operation over the items, in order; a failing item fails the request, naming it. */
async function runItems(request: KeepRequest, operation: Operation, decodeFormat?: string) {
  const roleName = request.params.role_name;
  const { items, batch } = itemsOf(request.body);
  const now = Date.now();
  const pending: { store: TokenStore; record: TokenRecord }[] = [];
  const results: Record<string, unknown>[] = [];
  for (const [index, item] of items.entries()) {
    try {
      results.push(await runItem(request, operation, roleName, item, now, pending, decodeFormat));
    } catch (e) {
      if (e instanceof KeepError && batch) throw new KeepError(e.status, e.errors.map((m) => `batch_input[${index}]: ${m}`));
      throw e;
    }
  }
  // New tokens are written together, per store.
  const byStore = new Map<TokenStore, TokenRecord[]>();
  for (const { store, record } of pending) byStore.set(store, [...(byStore.get(store) ?? []), record]);
  for (const [store, records] of byStore) await store.putMany(records);
  if (!batch) return engineReply(results[0], request.mount.type);
  // Batch items of a decode carry the decoded text under `encoded_value`, as the service answers them.
  const batchResults = operation === "decode" ? results.map(({ decoded_value, ...rest }) => ({ encoded_value: decoded_value, ...rest })) : results;
  return engineReply({ batch_results: batchResults }, request.mount.type);
}

async function runItem(
  request: KeepRequest,
  operation: Operation,
  roleName: string,
  item: Item,
  now: number,
  pending: { store: TokenStore; record: TokenRecord }[],
  decodeFormat: string | undefined,
): Promise<Record<string, unknown>> {
  const { name, transformation } = resolveTransformation(request, roleName, item.transformation);
  const mount = request.mount;
  const reference = item.reference ? { reference: item.reference } : {};
  const tokenizationOnly = () => {
    if (transformation.type !== "tokenization") throw badRequest(`${operation} applies to tokenization transformations; "${name}" is ${transformation.type}`);
  };
  const storeOf = () => tokenStoreOf(request.state, mount, transformation.stores[0]);
  const liveRecord = async (token: string) => {
    const record = await storeOf().get(transformation.id, tokenHash(transformation, token));
    return isLive(record, now) ? record : undefined;
  };

  switch (operation) {
    case "encode": {
      if (transformation.type === "fpe") {
        const { template, alphabet } = fpeParts(mount, transformation);
        const result = fpeEncode(transformation, template, alphabet, item.value, item.tweak);
        return { encoded_value: result.value, ...(result.tweak ? { tweak: result.tweak } : {}), ...reference };
      }
      if (transformation.type === "masking") {
        return { encoded_value: mask(transformation, requireTemplate(mount, transformation.templates[0]), item.value), ...reference };
      }
      const ttl = readDuration({ ttl: item.ttl }, "ttl") ?? 0;
      const { token, record } = tokenize(transformation, item.value, ttl, item.metadata ?? "", now);
      pending.push({ store: storeOf(), record });
      return { encoded_value: token, ...reference };
    }
    case "decode": {
      if (transformation.type === "masking") throw badRequest(`masking transformation "${name}" cannot decode: masking is one-way`);
      if (transformation.type === "fpe") {
        const { template, alphabet } = fpeParts(mount, transformation);
        const decoded = fpeDecode(transformation, template, alphabet, item.value, item.tweak, decodeFormat);
        // The service names the decoded text `decoded_value` alone and `encoded_value` in batch items.
        return { decoded_value: decoded, ...reference };
      }
      if (decodeFormat !== undefined) throw badRequest("decode formats apply to FPE transformations");
      const record = await liveRecord(item.value);
      if (!record) throw expiredOrUnknown();
      return { decoded_value: unseal(transformation, record.ciphertext), ...reference };
    }
    case "validate": {
      tokenizationOnly();
      return { valid: (await liveRecord(item.value)) !== undefined, ...reference };
    }
    case "tokenized": {
      tokenizationOnly();
      return { tokenized: await storeOf().hasValue(transformation.id, valueHash(transformation, item.value), now), ...reference };
    }
    case "metadata": {
      tokenizationOnly();
      const record = await liveRecord(item.value);
      if (!record) throw expiredOrUnknown();
      return {
        metadata: record.metadata,
        expiration_time: record.expiresAt === undefined ? null : new Date(record.expiresAt).toISOString(),
        ...reference,
      };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Snapshots.

function encodeContinuation(id: string, offset: number): string {
  return Buffer.from(JSON.stringify({ s: id, o: offset })).toString("base64url");
}

function decodeContinuation(text: string): { id: string; offset: number } {
  try {
    const parsed = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as { s?: unknown; o?: unknown };
    if (typeof parsed.s === "string" && typeof parsed.o === "number") return { id: parsed.s, offset: parsed.o };
  } catch {
    // Falls through to the refusal.
  }
  throw badRequest("continuation is not one this service gave");
}

async function snapshot(request: KeepRequest) {
  const name = request.params.name;
  const mount = request.mount;
  const transformation = mount.store.get<StoredTransformation>(KINDS.transformation, name);
  if (!transformation) throw notFound(`transformation "${name}" does not exist`);
  if (transformation.type !== "tokenization") throw badRequest(`snapshots apply to tokenization transformations; "${name}" is ${transformation.type}`);
  const limit = readInteger(request.body, "limit", { min: 0 }) ?? SNAPSHOT_LIMIT;
  if (limit === 0) throw badRequest("limit must be at least 1");
  const snapshots = snapshotsOf(mount);
  const store = tokenStoreOf(request.state, mount, transformation.stores[0]);
  const given = readString(request.body, "continuation");
  let id: string;
  let offset: number;
  if (given) {
    ({ id, offset } = decodeContinuation(given));
    if (snapshots.get(id)?.transformation !== name) throw badRequest("continuation is not one of this transformation's snapshots, or it has ended");
  } else {
    // The snapshot holds the values present now; later tokens are not part of it.
    id = randomUUID();
    offset = 0;
    snapshots.set(id, { transformation: name, keys: await store.keys(transformation.id) });
  }
  const keys = snapshots.get(id)!.keys;
  const records = await store.getMany(transformation.id, keys.slice(offset, offset + limit));
  const values = records.map((r) =>
    Buffer.from(
      JSON.stringify({
        token_hash: r.tokenHash,
        value_hash: r.valueHash,
        ciphertext: r.ciphertext,
        metadata: r.metadata,
        expiration_time: r.expiresAt === undefined ? null : new Date(r.expiresAt).toISOString(),
      }),
    ).toString("base64"),
  );
  const next = offset + limit;
  if (next >= keys.length) snapshots.delete(id);
  return engineReply({ values, ...(next < keys.length ? { continuation: encodeContinuation(id, next) } : {}) }, mount.type);
}

// ---------------------------------------------------------------------------------------------
// Routes.

function builtInRoutes(engine: KeepEngine, kind: "alphabet" | "template", table: Readonly<Record<string, object>>): void {
  const refuse = () => {
    throw badRequest(`built-in ${kind}s cannot be changed or deleted`);
  };
  engine.add({
    path: `${kind}/builtin/:name`,
    summary: `A built-in ${kind} of the engine.`,
    params: { name: `Name after builtin/.` },
    operations: {
      read: {
        summary: `Read the built-in ${kind}.`,
        handler: (request) => {
          const found = table[`${BUILTIN_PREFIX}${request.params.name}`];
          if (!found) throw notFound();
          return engineReply({ ...found }, request.mount.type);
        },
      },
      write: { summary: `Refused: built-in ${kind}s are fixed.`, handler: refuse },
      delete: { summary: `Refused: built-in ${kind}s are fixed.`, handler: refuse },
    },
  });
}

/** Registers the transform engine's routes; `keep.mount(path, "transform")` makes them reachable. */
export function registerTransformEngine(router: KeepRouter): void {
  const engine = router.engine(TRANSFORM_ENGINE, { summary: "The transform secrets engine: format-preserving encryption, masking and tokenization." });

  addCollection<StoredRole>(engine, {
    path: KINDS.role,
    label: "transform role",
    parse: (body) => ({ transformations: readStringList(body, "transformations") ?? [] }),
    // LIST takes a glob `filter` on role names; an empty result is a 404 like any empty list.
    listExtras: (_store, names, request) => {
      const filter = request.query.filter ?? (typeof request.body.filter === "string" ? request.body.filter : "*");
      const keys = names.filter((n) => globMatches(filter || "*", n));
      if (keys.length === 0) throw notFound();
      return { keys };
    },
  });

  const transformations = addCollection<StoredTransformation>(engine, {
    path: KINDS.transformation,
    label: "transformation",
    // The deprecated generic write: any type, the type's parameters, the others ignored.
    parse: (body, { existing, request }) => {
      const type = readEnum(body, "type", TRANSFORMATION_TYPES, { required: true });
      if (type !== "tokenization") readString(body, "template", { required: true });
      return parseTransformation(request, type, existing, true);
    },
    view: viewTransformation,
  });

  for (const type of TRANSFORMATION_TYPES) {
    engine.add({
      path: `transformations/${type}/:name`,
      summary: `Create or update a ${type} transformation.`,
      params: { name: "Name of the transformation." },
      operations: {
        write: {
          summary: `Write a ${type} transformation.`,
          handler: (request) => {
            const name = request.params.name;
            const existing = transformations.get(request, name);
            request.mount.store.put(KINDS.transformation, name, parseTransformation(request, type, existing, false));
          },
        },
      },
    });
  }

  addCollection<StoredTemplate>(engine, { path: KINDS.template, label: "transform template", parse: (body, { existing }) => parseTemplate(body, existing) });
  addCollection<StoredAlphabet>(engine, { path: KINDS.alphabet, label: "transform alphabet", parse: (body) => parseAlphabet(body) });
  builtInRoutes(engine, "alphabet", BUILTIN_ALPHABETS);
  builtInRoutes(engine, "template", BUILTIN_TEMPLATES);

  addCollection<StoredStore>(engine, {
    path: KINDS.store,
    label: "transform store",
    parse: (body, { existing, name, request }) => {
      const stored = parseStore(body, existing);
      sqlPoolsOf(request.state).forget(request.mount, name);
      return stored;
    },
    view: (s) => ({ type: s.type, connection_string: s.connection_string, supported_transformations: [...s.supported_transformations] }),
    beforeDelete: (name, request) => sqlPoolsOf(request.state).forget(request.mount, name),
  });

  engine.add({
    path: "stores/:name/schema",
    summary: "Create the tables a store needs, with credentials used for this call only.",
    params: { name: "Name of the store." },
    operations: {
      write: {
        summary: "Create or upgrade the store's schema.",
        handler: async (request) => {
          const name = request.params.name;
          const stored = request.mount.store.get<StoredStore>(KINDS.store, name);
          if (!stored) throw badRequest(`store "${name}" does not exist`);
          const username = readString(request.body, "username", { required: true });
          const password = readString(request.body, "password", { required: true });
          readEnum(request.body, "transformation_type", ["tokenization"] as const);
          await createStoreSchema(name, stored, username, password);
        },
      },
    },
  });

  const itemRoute = (path: string, operation: Operation, summary: string) =>
    engine.add({
      path,
      summary,
      params: { role_name: "Role the request goes through.", decode_format: "A decode format of the template." },
      operations: { write: { summary, status: 200, handler: (request) => runItems(request, operation, request.params.decode_format) } },
    });
  itemRoute("encode/:role_name", "encode", "Encode a value or a batch.");
  itemRoute("decode/:role_name", "decode", "Decode a value or a batch.");
  itemRoute("decode/:role_name/:decode_format", "decode", "Decode a value or a batch into a decode format.");
  itemRoute("validate/:role_name", "validate", "Whether a token is valid.");
  itemRoute("tokenized/:role_name", "tokenized", "Whether a value has a valid token.");
  itemRoute("metadata/:role_name", "metadata", "The metadata of a token.");

  engine.add({
    path: "transformations/tokenization/snapshot/:name",
    summary: "Snapshot of a tokenization transformation's first store.",
    params: { name: "Name of the tokenization transformation." },
    operations: { write: { summary: "Start or continue a snapshot.", status: 200, handler: snapshot } },
  });
}

// ---------------------------------------------------------------------------------------------
// Out-of-band access for tests.

export interface TransformMountRef {
  /** Namespace path; the root when absent. */
  namespace?: string;
  /** Where the engine is mounted ("transform" when absent). */
  mount?: string;
}

/** Tests' view of the transform engines of an emulator. */
export interface TransformAccess {
  /** Token records of a transformation in its first store (internal or SQL), oldest first. */
  tokens(transformation: string, ref?: TransformMountRef): Promise<TokenRecord[]>;
  /** Expires a token now, as time passing would. */
  expire(transformation: string, token: string, ref?: TransformMountRef): Promise<void>;
  /** Ends the emulator's connections to SQL stores (before the database stops). */
  closeStores(): Promise<void>;
}

/** Out-of-band access to the transform engine of an emulator (`startKeepEmulator()`'s `state`). */
export function transformAccess(state: KeepState): TransformAccess {
  const locate = (name: string, ref: TransformMountRef) => {
    const mount = state.requireMount(state.requireNamespace(ref.namespace), ref.mount ?? "transform");
    const transformation = mount.store.get<StoredTransformation>(KINDS.transformation, name);
    if (!transformation) throw new Error(`keep emulator: no transformation "${name}" in ${mount.displayPath}`);
    return { transformation, store: tokenStoreOf(state, mount, transformation.stores[0]) };
  };
  return {
    async tokens(name, ref = {}) {
      const { transformation, store } = locate(name, ref);
      return store.getMany(transformation.id, await store.keys(transformation.id));
    },
    async expire(name, token, ref = {}) {
      const { transformation, store } = locate(name, ref);
      await store.setExpiration(transformation.id, tokenHash(transformation, token), Date.now() - 1000);
    },
    closeStores: () => sqlPoolsOf(state).close(),
  };
}
