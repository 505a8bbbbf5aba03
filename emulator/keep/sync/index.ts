/**
 * Secret sync in the secrets service emulator (a test double): the `sys/sync/*` routes, and
 * out-of-band access for tests through `syncOf(keep)`: the external systems' stores, destinations
 * made to fail, administrative namespaces, and changes behind the program's back.
 */
import type { KeepState } from "../state";
import type { KeepRouter } from "../router";
import {
  ASSOCIATION_KIND,
  DESTINATION_KIND,
  APP_KIND,
  ExternalSecret,
  StoredAssociation,
  StoredDestination,
  associationsOf,
  destinationKey,
  externalKey,
  followKeyValueSecrets,
  syncModule,
} from "./engine";
import { StoredApp, keyFingerprint, registerSyncRoutes } from "./routes";

export type { ExternalSecret, StoredAssociation, StoredDestination } from "./engine";
export type { StoredApp } from "./routes";
export { keyFingerprint } from "./routes";
export { DESTINATION_TYPES } from "./destination-types";
export type { DestinationType } from "./destination-types";

/** Registers the sync routes and makes sync follow new versions of key-value secrets. */
export function registerSync(router: KeepRouter): void {
  registerSyncRoutes(router);
  followKeyValueSecrets(router.state);
}

/** Where a destination lives: its type and name, in a namespace (the root when absent). */
export interface DestinationRef {
  type: string;
  name: string;
  namespace?: string;
}

export interface SyncEmulator {
  /** What the external system of a destination holds, by secret name (a copy). */
  external(ref: DestinationRef): Record<string, ExternalSecret>;
  /** Every sync from now on to this destination fails with `cause` (status `EXTERNAL_SERVICE_ERROR`). */
  failDestination(ref: DestinationRef, cause: string): void;
  /** The destination works again; associations sync at their next set. */
  repairDestination(ref: DestinationRef): void;
  /** Lets `namespace` call `sys/sync/config`, as the server's administrative namespace. */
  addAdministrativeNamespace(namespace: string): void;
  /** The next association sets stay `SYNCING` for `reads` status reads before they complete. */
  holdSyncing(reads: number): void;
  /** The configuration and the number of queued operations. */
  config(): { disabled: boolean; queueCapacity: number; queued: number };
  /** The stored destination (sensitive values in clear), or undefined. */
  destination(ref: DestinationRef): StoredDestination | undefined;
  /** Changes a destination behind the program's back. */
  changeDestination(ref: DestinationRef, change: (current: StoredDestination) => StoredDestination): void;
  /** The associations of a namespace. */
  associations(namespace?: string): StoredAssociation[];
  /** Removes an association behind the program's back (what it wrote stays in the external store). */
  dropAssociation(association: StoredAssociation, namespace?: string): void;
  /** A custom repository-host application, or undefined. */
  app(name: string, namespace?: string): StoredApp | undefined;
  /** Writes an application behind the program's back (a key replaced out of band). */
  putApp(name: string, appId: number, privateKey: string, namespace?: string): void;
}

/** Out-of-band access to sync in an emulator started with `registerSync`. */
export function syncOf(keep: { state: KeepState }): SyncEmulator {
  const state = keep.state;
  const sync = syncModule(state);
  const store = (namespace?: string) => state.systemMount(state.requireNamespace(namespace)).store;
  const keyOf = (ref: DestinationRef) => externalKey(state.requireNamespace(ref.namespace), ref.type, ref.name);
  return {
    external: (ref) => Object.fromEntries([...(sync.external.get(keyOf(ref)) ?? new Map())].map(([k, v]) => [k, structuredClone(v)])),
    failDestination: (ref, cause) => {
      sync.failures.set(keyOf(ref), cause);
    },
    repairDestination: (ref) => {
      sync.failures.delete(keyOf(ref));
    },
    addAdministrativeNamespace: (namespace) => {
      state.ensureNamespace(namespace);
      sync.administrative.add(state.requireNamespace(namespace).path);
    },
    holdSyncing: (reads) => {
      sync.holdReads = reads;
    },
    config: () => ({ disabled: sync.disabled, queueCapacity: sync.queueCapacity, queued: sync.queue.length }),
    destination: (ref) => structuredClone(store(ref.namespace).get<StoredDestination>(DESTINATION_KIND, destinationKey(ref.type, ref.name))),
    changeDestination: (ref, change) => {
      const key = destinationKey(ref.type, ref.name);
      const current = store(ref.namespace).get<StoredDestination>(DESTINATION_KIND, key);
      if (!current) throw new Error(`keep emulator: no sync destination ${key}`);
      store(ref.namespace).put(DESTINATION_KIND, key, change(structuredClone(current)), "out-of-band");
    },
    associations: (namespace) => structuredClone(associationsOf(state, state.requireNamespace(namespace))),
    dropAssociation: (a, namespace) => {
      store(namespace).delete(ASSOCIATION_KIND, `${a.type}/${a.name}/${a.accessor}/${a.secret_name}`, "out-of-band");
    },
    app: (name, namespace) => structuredClone(store(namespace).get<StoredApp>(APP_KIND, name)),
    putApp: (name, appId, privateKey, namespace) => {
      store(namespace).put(APP_KIND, name, { name, app_id: appId, private_key: privateKey, fingerprint: keyFingerprint(privateKey) } satisfies StoredApp, "out-of-band");
    },
  };
}
