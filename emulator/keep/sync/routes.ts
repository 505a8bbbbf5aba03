/**
 * `sys/sync/*` routes of the secrets service emulator, as the spec's tables give them:
 * configuration, destinations per type, associations, and custom repository-host applications.
 */
import { createHash, createPublicKey } from "node:crypto";
import { RequestBody, readBool, readInteger, readString } from "../fields";
import { kvVersionOf, readKvSecret } from "../kv";
import { KeepError, badRequest, notFound, requireListResults, systemReply } from "../replies";
import type { KeepRequest, KeepRouter } from "../router";
import type { KeepNamespace, KeepState } from "../state";
import { DESTINATION_RULES, DESTINATION_TYPES, GRANULARITIES, Granularity, isDestinationType, readParameter } from "./destination-types";
import {
  APP_KIND,
  ASSOCIATION_KIND,
  DESTINATION_KIND,
  StoredAssociation,
  StoredDestination,
  associationsOf,
  continuePurge,
  destinationKey,
  drainQueue,
  getDestination,
  nanoTimestamp,
  observe,
  requestSync,
  requestUnsync,
  syncModule,
} from "./engine";
import { checkTemplate } from "./templates";

export interface StoredApp {
  name: string;
  app_id: number;
  private_key: string;
  fingerprint: string;
}

const OBFUSCATED = "*****";
const TRUE = new Set(["1", "t", "T", "true", "TRUE", "True"]);

/**
 * The fingerprint the repository host documents for an application's private key: SHA-256 of the
 * DER-encoded public key (SubjectPublicKeyInfo), base64.
 */
export function keyFingerprint(privateKeyPem: string): string {
  const der = createPublicKey(privateKeyPem).export({ type: "spki", format: "der" });
  return createHash("sha256").update(der).digest("base64");
}

const storeOf = (state: KeepState, namespace: KeepNamespace) => state.systemMount(namespace).store;

function requireType(type: string): asserts type is StoredDestination["type"] {
  if (!isDestinationType(type)) throw badRequest(`unsupported destination type "${type}": must be one of ${DESTINATION_TYPES.join(", ")}`);
}

export function viewDestination(stored: StoredDestination): Record<string, unknown> {
  const rules = DESTINATION_RULES[stored.type];
  const connection: Record<string, unknown> = {};
  for (const rule of rules.parameters) {
    const value = stored.connection[rule.wire];
    if (rule.sensitive) connection[rule.wire] = value ? OBFUSCATED : "";
    else connection[rule.wire] = value ?? (rule.kind === "list" ? [] : "");
  }
  const options: Record<string, unknown> = {
    granularity_level: stored.options.granularity_level,
    secret_name_template: stored.options.secret_name_template,
  };
  if (rules.tags) options.custom_tags = { ...stored.options.custom_tags };
  return {
    type: stored.type,
    name: stored.name,
    connection_details: connection,
    options,
    ...(stored.purge_initiated_at ? { purge_initiated_at: stored.purge_initiated_at } : {}),
  };
}

function viewAssociationEntry(a: StoredAssociation) {
  return { accessor: a.accessor, secret_name: a.secret_name, sync_status: a.sync_status, updated_at: a.updated_at, ...(a.cause ? { cause: a.cause } : {}) };
}

function viewDestinationEntry(a: StoredAssociation) {
  return { type: a.type, name: a.name, sync_status: a.sync_status, updated_at: a.updated_at, ...(a.cause ? { cause: a.cause } : {}) };
}

/** `associated_secrets` of a destination, `extra` (a removed association) included. */
function destinationAssociations(request: KeepRequest, type: string, name: string, extra?: StoredAssociation) {
  const list = associationsOf(request.state, request.namespace, (a) => a.type === type && a.name === name);
  if (extra) list.push(extra);
  return systemReply({
    associated_secrets: Object.fromEntries(list.map((a) => [`${a.accessor}/${a.secret_name}`, viewAssociationEntry(a)])),
    store_name: name,
    store_type: type,
  });
}

function secretDestinations(request: KeepRequest, mountPath: string, secretName: string) {
  const mount = request.state.findMount(request.namespace, mountPath);
  const list = mount ? associationsOf(request.state, request.namespace, (a) => a.accessor === mount.accessor && a.secret_name === secretName) : [];
  observe(request.state, request.namespace, list);
  return systemReply({ associated_destinations: Object.fromEntries(list.map((a) => [`${a.type}/${a.name}`, viewDestinationEntry(a)])) });
}

function readTags(body: RequestBody, type: StoredDestination["type"]): Record<string, string> | undefined {
  const value = body.custom_tags;
  if (value === undefined || value === null) return undefined;
  if (!DESTINATION_RULES[type].tags) throw badRequest(`'custom_tags' does not apply to destinations of type ${type}`);
  if (typeof value !== "object" || Array.isArray(value)) throw badRequest("'custom_tags' must be a map of strings");
  const tags: Record<string, string> = {};
  for (const [key, tag] of Object.entries(value)) {
    if (typeof tag !== "string") throw badRequest(`'custom_tags' must be a map of strings: "${key}" is not a string`);
    if (key.startsWith("keep:")) throw badRequest(`'custom_tags': "${key}" uses the prefix keep:, kept for the built-in tags`);
    tags[key] = tag;
  }
  return tags;
}

function writeDestination(request: KeepRequest): StoredDestination {
  const { state, namespace, params, body } = request;
  const type = params.type;
  requireType(type);
  const rules = DESTINATION_RULES[type];
  const existing = getDestination(state, namespace, type, params.name);
  if (existing?.purge_initiated_at) throw badRequest(`destination ${type}/${params.name} is being purged`);
  const connection: Record<string, unknown> = { ...(existing?.connection ?? {}) };
  for (const rule of rules.parameters) {
    const value = readParameter(body, rule);
    if (value !== undefined) connection[rule.wire] = value;
  }
  for (const rule of rules.parameters) {
    const value = connection[rule.wire];
    if (rule.required && (value === undefined || value === "" || (Array.isArray(value) && value.length === 0))) {
      throw badRequest(`'${rule.wire}' parameter not supplied or empty`);
    }
  }
  rules.check?.(connection, (app) => storeOf(state, namespace).has(APP_KIND, app));
  const granularityText = readString(body, "granularity") ?? existing?.options.granularity_level ?? rules.granularity;
  if (!(GRANULARITIES as readonly string[]).includes(granularityText)) {
    throw badRequest(`invalid 'granularity' "${granularityText}": must be one of ${GRANULARITIES.join(", ")}`);
  }
  const granularity = granularityText as Granularity;
  const template = typeof body.secret_name_template === "string" ? body.secret_name_template : existing?.options.secret_name_template ?? "";
  const fields = checkTemplate(template);
  if (template !== "" && granularity === "secret-key" && !fields.includes("SecretKey")) {
    throw badRequest("'secret_name_template' must use {{ .SecretKey }} with granularity secret-key: each key becomes its own secret");
  }
  const stored: StoredDestination = {
    type,
    name: params.name,
    connection,
    options: { granularity_level: granularity, secret_name_template: template, custom_tags: readTags(body, type) ?? existing?.options.custom_tags ?? {} },
  };
  storeOf(state, namespace).put(DESTINATION_KIND, destinationKey(type, params.name), stored);
  return stored;
}

function readAssociationTarget(body: RequestBody) {
  return { mount: readString(body, "mount", { required: true }).replace(/^\/+|\/+$/g, ""), secretName: readString(body, "secret_name", { required: true }) };
}

function requireDestination(request: KeepRequest): StoredDestination {
  requireType(request.params.type);
  const destination = getDestination(request.state, request.namespace, request.params.type, request.params.name);
  if (!destination) throw notFound(`destination ${request.params.type}/${request.params.name} does not exist`);
  return destination;
}

function setAssociation(request: KeepRequest) {
  const { state, namespace } = request;
  const destination = requireDestination(request);
  if (destination.purge_initiated_at) throw badRequest(`destination ${destination.type}/${destination.name} is being purged`);
  const { mount: mountPath, secretName } = readAssociationTarget(request.body);
  const mount = state.findMount(namespace, mountPath);
  if (!mount) throw badRequest(`'mount': nothing is mounted at "${mountPath}/"`);
  if (mount.type !== "kv" || kvVersionOf(mount) !== 2) {
    const what = mount.type === "kv" ? "a key-value version 1 mount" : `a ${mount.type} mount`;
    throw badRequest(`only key-value version 2 secrets can be associated: "${mountPath}/" is ${what}`);
  }
  if (!readKvSecret(mount, secretName)) throw badRequest(`'secret_name': no secret "${secretName}" exists in "${mountPath}/"`);
  const key = `${destination.type}/${destination.name}/${mount.accessor}/${secretName}`;
  const existing = storeOf(state, namespace).get<StoredAssociation>(ASSOCIATION_KIND, key);
  // Setting an existing association refreshes it: the sync runs again (and retries a failed one).
  const association: StoredAssociation = existing
    ? structuredClone(existing)
    : { type: destination.type, name: destination.name, mount: mountPath, accessor: mount.accessor, secret_name: secretName, sync_status: "PENDING", updated_at: nanoTimestamp(), written: [] };
  requestSync(state, namespace, association);
  return destinationAssociations(request, destination.type, destination.name);
}

function removeAssociation(request: KeepRequest) {
  const { state, namespace } = request;
  const destination = requireDestination(request);
  const { mount: mountPath, secretName } = readAssociationTarget(request.body);
  const mount = state.findMount(namespace, mountPath);
  const key = mount && `${destination.type}/${destination.name}/${mount.accessor}/${secretName}`;
  const existing = key ? storeOf(state, namespace).get<StoredAssociation>(ASSOCIATION_KIND, key) : undefined;
  // Removing an absent association succeeds.
  if (!existing) return destinationAssociations(request, destination.type, destination.name);
  const association = structuredClone(existing);
  requestUnsync(state, namespace, association);
  const stillThere = storeOf(state, namespace).has(ASSOCIATION_KIND, key!);
  return destinationAssociations(request, destination.type, destination.name, stillThere ? undefined : association);
}

function requireConfigScope(request: KeepRequest): void {
  const { namespace, state } = request;
  if (namespace.isRoot || syncModule(state).administrative.has(namespace.path)) return;
  throw badRequest(`sys/sync/config can only be called from the root namespace or an administrative namespace; "${namespace.displayPath}" is neither`);
}

function viewConfig(state: KeepState) {
  const sync = syncModule(state);
  return { disabled: sync.disabled, queue_capacity: sync.queueCapacity };
}

export function registerSyncRoutes(router: KeepRouter): void {
  router.add({
    path: "sys/sync/config",
    summary: "Cluster-wide configuration of secret sync.",
    operations: {
      read: {
        summary: "Read the configuration.",
        handler: (request) => {
          requireConfigScope(request);
          return systemReply(viewConfig(request.state));
        },
      },
      patch: {
        summary: "Change the configuration (`application/merge-patch+json`): `disabled`, `queue_capacity`.",
        status: 200,
        handler: (request) => {
          requireConfigScope(request);
          const type = String(request.raw.headers["content-type"] ?? "");
          if (!type.startsWith("application/merge-patch+json")) throw new KeepError(415, ["PATCH requires Content-Type application/merge-patch+json"]);
          const sync = syncModule(request.state);
          const disabled = readBool(request.body, "disabled");
          const capacity = readInteger(request.body, "queue_capacity", { min: 1 });
          if (capacity !== undefined) sync.queueCapacity = capacity;
          if (disabled !== undefined) {
            sync.disabled = disabled;
            if (!disabled) drainQueue(request.state);
          }
          return systemReply(viewConfig(request.state));
        },
      },
    },
  });

  router.add({
    path: "sys/sync/destinations",
    summary: "Sync destinations of every type.",
    operations: {
      list: {
        summary: "List destination types with their names.",
        handler: ({ state, namespace }) => {
          const keyInfo: Record<string, string[]> = {};
          for (const key of storeOf(state, namespace).names(DESTINATION_KIND)) {
            const [type, name] = key.split("/");
            (keyInfo[`${type}/`] ??= []).push(name);
          }
          const keys = Object.keys(keyInfo).sort();
          requireListResults(keys);
          const total = Object.values(keyInfo).reduce((n, names) => n + names.length, 0);
          return systemReply({ key_info: keyInfo, keys, total_destinations: total });
        },
      },
    },
  });

  router.add({
    path: "sys/sync/destinations/:type",
    summary: "Sync destinations of one type.",
    params: { type: `Destination type: ${DESTINATION_TYPES.join(", ")}.` },
    operations: {
      list: {
        summary: "List the destination names of the type.",
        handler: ({ state, namespace, params }) => {
          const keys = storeOf(state, namespace)
            .names(DESTINATION_KIND)
            .filter((key) => key.startsWith(`${params.type}/`))
            .map((key) => key.slice(params.type.length + 1));
          requireListResults(keys);
          return systemReply({ keys, total_destinations: keys.length });
        },
      },
    },
  });

  router.add({
    path: "sys/sync/destinations/:type/:name",
    summary: "One sync destination.",
    params: { type: "Destination type.", name: "Name of the destination." },
    operations: {
      read: {
        summary: "Read the destination; sensitive connection details are obfuscated.",
        handler: (request) => {
          const destination = getDestination(request.state, request.namespace, request.params.type, request.params.name);
          if (!destination) throw notFound();
          return systemReply(viewDestination(destination));
        },
      },
      write: {
        summary: "Create or update the destination with its type's parameters.",
        status: 200,
        handler: (request) => systemReply(viewDestination(writeDestination(request))),
      },
      delete: {
        summary: "Delete the destination; `?purge=true` unsyncs and removes its associations first, in the background.",
        handler: ({ state, namespace, params, query }) => {
          const destination = getDestination(state, namespace, params.type, params.name);
          if (!destination) return;
          const associations = associationsOf(state, namespace, (a) => a.type === params.type && a.name === params.name);
          if (associations.length === 0) {
            storeOf(state, namespace).delete(DESTINATION_KIND, destinationKey(params.type, params.name));
            return;
          }
          if (!TRUE.has(query.purge ?? "")) {
            const names = associations.map((a) => `${a.mount}/${a.secret_name}`).join(", ");
            throw badRequest(`destination ${params.type}/${params.name} still manages associations (${names}): remove them first, or delete with purge=true`);
          }
          if (!destination.purge_initiated_at) {
            storeOf(state, namespace).put(DESTINATION_KIND, destinationKey(params.type, params.name), { ...destination, purge_initiated_at: nanoTimestamp() });
          }
          setImmediate(() => continuePurge(state, namespace, params.type, params.name));
        },
      },
    },
  });

  router.add({
    path: "sys/sync/destinations/:type/:name/associations",
    summary: "The secrets associated with a destination.",
    params: { type: "Destination type.", name: "Name of the destination." },
    operations: {
      read: {
        summary: "Read the associations and their sync status.",
        handler: (request) => {
          const destination = requireDestination(request);
          observe(request.state, request.namespace, associationsOf(request.state, request.namespace, (a) => a.type === destination.type && a.name === destination.name));
          return destinationAssociations(request, destination.type, destination.name);
        },
      },
    },
  });

  router.add({
    path: "sys/sync/destinations/:type/:name/associations/set",
    summary: "Associate a key-value version 2 secret with the destination.",
    params: { type: "Destination type.", name: "Name of the destination." },
    operations: { write: { summary: "Set (or refresh) an association: `mount`, `secret_name`.", status: 200, handler: setAssociation } },
  });

  router.add({
    path: "sys/sync/destinations/:type/:name/associations/remove",
    summary: "Remove an association of the destination.",
    params: { type: "Destination type.", name: "Name of the destination." },
    operations: { write: { summary: "Remove an association: `mount`, `secret_name`; absent ones succeed.", status: 200, handler: removeAssociation } },
  });

  router.add({
    path: "sys/sync/associations",
    summary: "Every association of the namespace.",
    operations: {
      list: {
        summary: "List associations by destination.",
        handler: ({ state, namespace }) => {
          const all = associationsOf(state, namespace);
          const keyInfo: Record<string, { mount: string; secret_path: string }[]> = {};
          for (const a of all) (keyInfo[`${a.type}/${a.name}`] ??= []).push({ mount: a.mount, secret_path: a.secret_name });
          const keys = Object.keys(keyInfo).sort();
          requireListResults(keys);
          const secrets = new Set(all.map((a) => `${a.accessor}/${a.secret_name}`));
          return systemReply({ key_info: keyInfo, keys, total_associations: all.length, total_secrets: secrets.size });
        },
      },
    },
  });

  router.add({
    path: "sys/sync/associations/destinations",
    summary: "The destinations a secret is associated with (`?mount=&secret_name=`).",
    operations: {
      read: {
        summary: "Read the destinations of a secret and their sync status.",
        handler: (request) => {
          const mount = request.query.mount;
          const secretName = request.query.secret_name;
          if (!mount) throw badRequest("'mount' parameter not supplied or empty");
          if (!secretName) throw badRequest("'secret_name' parameter not supplied or empty");
          return secretDestinations(request, mount.replace(/^\/+|\/+$/g, ""), secretName);
        },
      },
    },
  });

  router.add({
    path: "sys/sync/associations/:mount/:name*",
    summary: "The destinations a secret is associated with.",
    params: { mount: "Mount path of the key-value engine.", name: "Path of the secret." },
    operations: {
      read: { summary: "Read the destinations of a secret.", handler: (request) => secretDestinations(request, request.params.mount, request.params.name) },
    },
  });

  router.add({
    path: "sys/sync/github-apps/:name",
    summary: "A custom repository-host application used by repohost destinations.",
    params: { name: "Name of the application." },
    operations: {
      read: {
        summary: "Read the application; the private key is obfuscated.",
        handler: ({ state, namespace, params }) => {
          const app = storeOf(state, namespace).get<StoredApp>(APP_KIND, params.name);
          if (!app) throw notFound();
          return systemReply(viewApp(app));
        },
      },
      write: {
        summary: "Create or update the application: `app_id`, `private_key`.",
        status: 200,
        handler: ({ state, namespace, params, body }) => {
          const existing = storeOf(state, namespace).get<StoredApp>(APP_KIND, params.name);
          const appIdText = readString(body, "app_id") ?? (existing ? String(existing.app_id) : undefined);
          if (appIdText === undefined) throw badRequest("'app_id' parameter not supplied or empty");
          if (!/^\d+$/.test(appIdText)) throw badRequest(`'app_id' must be an integer, got "${appIdText}"`);
          const privateKey = readString(body, "private_key") ?? existing?.private_key;
          if (privateKey === undefined) throw badRequest("'private_key' parameter not supplied or empty");
          let fingerprint: string;
          try {
            fingerprint = keyFingerprint(privateKey);
          } catch {
            throw badRequest("'private_key' must be a PEM-encoded private key");
          }
          const app: StoredApp = { name: params.name, app_id: Number(appIdText), private_key: privateKey, fingerprint };
          storeOf(state, namespace).put(APP_KIND, params.name, app);
          return systemReply(viewApp(app));
        },
      },
      delete: {
        summary: "Delete the application (not at the host); refused while a destination uses it.",
        handler: ({ state, namespace, params }) => {
          const store = storeOf(state, namespace);
          const users = store
            .names(DESTINATION_KIND)
            .map((key) => store.get<StoredDestination>(DESTINATION_KIND, key)!)
            .filter((d) => d.type === "repohost" && d.connection.app_name === params.name)
            .map((d) => `${d.type}/${d.name}`);
          if (users.length > 0) {
            throw badRequest(`custom application "${params.name}" is used by destination ${users.join(", ")}: change or delete ${users.length === 1 ? "it" : "them"} first`);
          }
          store.delete(APP_KIND, params.name);
        },
      },
    },
  });
}

export function viewApp(app: StoredApp) {
  return { app_id: app.app_id, fingerprint: app.fingerprint, name: app.name, private_key: OBFUSCATED };
}
