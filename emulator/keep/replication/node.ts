/**
 * Performance replication between clusters of the emulator, for real: each cluster is a
 * ReplicationNode with its mode (`disabled`, `primary`, `secondary`) under the spec's state table,
 * and a ReplicationNetwork lets nodes reach each other by address, as clusters of one replication
 * set do. A primary streams every change of its replicated data to its connected secondaries,
 * synchronously (no test waits for replication), less what each secondary's paths filter excludes;
 * a secondary that missed changes (unreachable, revoked, demoted primary) catches up with a full
 * comparison when it can connect again.
 *
 * Transitions the table does not allow answer 400 naming the mode and what it allows.
 */
import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { badRequest, permissionDenied } from "../replies";
import type { KeepRouter } from "../router";
import type { KeepChange, KeepState } from "../state";
import { allNamespaces, ClusterData, applyChange, merkleRoot, syncFromPrimary, wipe } from "./data";
import { PathsFilter, mountIncluded, namespaceIncluded } from "./filter";
import { parseDuration } from "../durations";
import { newAccessor, readActivationClaims, signActivationToken, verifyActivationToken } from "./tokens";

export type ReplicationMode = "disabled" | "primary" | "secondary";

/** What each mode allows, for the messages of refused transitions. */
export const ALLOWED_FROM: Record<ReplicationMode, string> = {
  disabled: "primary enable, secondary enable",
  primary: "primary demote, primary disable, secondary-token, revoke-secondary, paths filters",
  secondary: "secondary promote, secondary disable, update-primary",
};

const DEFAULT_TOKEN_TTL = 30 * 60;
/** A TTL must be more than zero seconds. */
const positive = (seconds: number | undefined) => (seconds !== undefined && seconds > 0 ? seconds : undefined);

/** The network the clusters of one emulator share: addresses, the token key, faults and a clock for tests. */
export class ReplicationNetwork {
  readonly nodes = new Set<ReplicationNode>();
  /** Signs activation tokens. */
  readonly key = randomBytes(32);
  /** Cluster addresses no secondary can reach (a test cuts the link). */
  readonly unreachable = new Set<string>();
  /** Status reads during which a newly connected secondary reports `bootstrapping` before `stream-wals`. */
  bootstrapReads = 0;
  /** Added to the clock (token expiry) by tests. */
  clockOffsetMs = 0;

  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  byApiAddress(address: string): ReplicationNode | undefined {
    const wanted = address.replace(/\/+$/, "");
    return [...this.nodes].find((node) => node.apiAddress === wanted);
  }
}

/** A secondary as its primary knows it. */
interface SecondaryLink {
  secondaryId: string;
  node: ReplicationNode;
  lastHeartbeat: string;
}

/** A token handed out and not used yet. */
interface IssuedToken {
  secondaryId: string;
  accessor: string;
  expiresAt: number;
  publicKey: string;
}

/** The primary a secondary follows. */
interface PrimaryLink {
  node: ReplicationNode;
  clusterAddress: string;
  apiAddress: string;
  lastHeartbeat: string;
}

const isWrite = (kind: string) => kind !== "read" && kind !== "list";
const timestamp = (ms: number) => new Date(ms).toISOString();

export class ReplicationNode implements ClusterData {
  mode: ReplicationMode = "disabled";
  /** This cluster's ID in replication; made when it enters replication from `disabled`. */
  clusterId = "";
  /** The replication set it belongs to: made by a primary enable, kept by demote and promote, taken by a secondary. */
  replicationSet = "";
  /** API address (its server's URL), set once the server listens. */
  apiAddress = "";
  /** The cluster address a primary gives its secondaries. */
  advertisedClusterAddress = "";
  lastWal = 0;
  /** Primary: secondaries by ID, issued tokens by accessor, paths filters by secondary cluster ID. */
  readonly secondaries = new Map<string, SecondaryLink>();
  readonly tokens = new Map<string, IssuedToken>();
  readonly filters = new Map<string, PathsFilter>();
  /** Secondary: its primary, its ID there, what it has received. */
  primary?: PrimaryLink;
  secondaryId = "";
  lastRemoteWal = 0;
  /** Whether it has completed a sync from a primary since it became a secondary. */
  synced = false;
  /** It missed changes while unable to connect. */
  private stale = false;
  private bootstrapReadsLeft = 0;
  /** Public keys this cluster generated for tokens issued to it. */
  readonly publicKeys = new Set<string>();

  constructor(
    readonly name: string,
    readonly network: ReplicationNetwork,
    readonly state: KeepState,
    readonly router: KeepRouter,
  ) {
    network.nodes.add(this);
    state.onChange((change) => this.onChange(change));
  }

  /** The cluster address it listens at for replication when none is configured. */
  get defaultClusterAddress(): string {
    return `https://${this.name}.cluster.keep.test:8201`;
  }

  private refuse(operation: string): Error {
    return badRequest(
      `cannot ${operation}: this cluster's replication mode is "${this.mode}"; from "${this.mode}" the replication state table allows: ${ALLOWED_FROM[this.mode]}`,
    );
  }

  private requireMode(mode: ReplicationMode, operation: string): void {
    if (this.mode !== mode) throw this.refuse(operation);
  }

  // ---------------------------------------------------------------------------------------------
  // Primary side.

  enablePrimary(clusterAddress: string | undefined): void {
    this.requireMode("disabled", "enable a performance primary");
    this.mode = "primary";
    this.clusterId = randomUUID();
    this.replicationSet = randomUUID();
    this.advertisedClusterAddress = clusterAddress || this.defaultClusterAddress;
    this.resetPrimarySide();
  }

  private resetPrimarySide(): void {
    this.secondaries.clear();
    this.tokens.clear();
    this.filters.clear();
  }

  demotePrimary(): void {
    this.requireMode("primary", "demote a primary");
    this.mode = "secondary";
    this.resetPrimarySide();
    this.primary = undefined;
    this.secondaryId = "";
    this.lastRemoteWal = this.lastWal;
    this.synced = true;
  }

  disablePrimary(): void {
    this.requireMode("primary", "disable a primary");
    this.leaveReplication();
  }

  private leaveReplication(): void {
    this.mode = "disabled";
    this.clusterId = "";
    this.replicationSet = "";
    this.resetPrimarySide();
    this.primary = undefined;
    this.secondaryId = "";
    this.synced = false;
  }

  /** `secondary-token`: a single-use wrapping token for secondary `id`. */
  issueToken(id: string, ttl: unknown, publicKey: string, callerToken: string | undefined) {
    this.requireMode("primary", "generate a secondary activation token");
    // Secondary-token generation requires sudo: the root token has it, other tokens here do not.
    if (callerToken !== this.state.rootToken) throw permissionDenied();
    if (!id) throw badRequest("missing secondary id");
    const seconds = ttl === undefined || ttl === "" ? DEFAULT_TOKEN_TTL : positive(parseDuration(ttl, { days: true }));
    if (seconds === undefined) throw badRequest(`invalid ttl "${String(ttl)}": give a duration such as "30m" or a number of seconds`);
    if (this.secondaries.has(id)) throw badRequest(`a secondary with id "${id}" is already known to this primary: revoke it before generating a new token for it`);
    // A new token for an ID replaces one not used yet.
    for (const [accessor, issued] of this.tokens) if (issued.secondaryId === id) this.tokens.delete(accessor);
    const now = this.network.now();
    const accessor = newAccessor();
    const token = signActivationToken(
      { addr: this.apiAddress, exp: Math.floor(now / 1000) + seconds, iat: Math.floor(now / 1000), jti: accessor, type: "wrapping" },
      this.network.key,
    );
    this.tokens.set(accessor, { secondaryId: id, accessor, expiresAt: now + seconds * 1000, publicKey });
    return { token, accessor, ttl: seconds, creation_time: timestamp(now), creation_path: "sys/replication/performance/primary/secondary-token", wrapped_accessor: "" };
  }

  revokeSecondary(id: string): void {
    this.requireMode("primary", "revoke a secondary");
    if (!id) throw badRequest("missing secondary id");
    this.secondaries.delete(id);
    for (const [accessor, issued] of this.tokens) if (issued.secondaryId === id) this.tokens.delete(accessor);
  }

  /** The primary's end of unwrapping: checks the token and uses it up. */
  private unwrap(token: string, secondary: ReplicationNode): IssuedToken {
    if (this.mode !== "primary") throw badRequest(`error unwrapping the activation token: the cluster at ${this.apiAddress} is not a performance primary (mode "${this.mode}")`);
    const claims = verifyActivationToken(token, this.network.key);
    const issued = claims && this.tokens.get(claims.jti);
    if (!claims || !issued) throw badRequest("error unwrapping the activation token: wrapping token is not valid or does not exist (it may have been used already)");
    this.tokens.delete(issued.accessor);
    if (issued.expiresAt <= this.network.now()) throw badRequest("error unwrapping the activation token: the wrapping token has expired");
    if (issued.publicKey && !secondary.publicKeys.has(issued.publicKey)) {
      throw badRequest("the activation token was issued for another secondary's public key: generate the key on this cluster (secondary/generate-public-key) and ask for a token with it");
    }
    return issued;
  }

  setFilter(secondaryClusterId: string, filter: PathsFilter): void {
    this.requireMode("primary", "write a paths filter");
    this.filters.set(secondaryClusterId, filter);
    this.resyncSecondaryOf(secondaryClusterId);
  }

  deleteFilter(secondaryClusterId: string): void {
    this.requireMode("primary", "delete a paths filter");
    if (this.filters.delete(secondaryClusterId)) this.resyncSecondaryOf(secondaryClusterId);
  }

  readFilter(secondaryClusterId: string): PathsFilter | undefined {
    this.requireMode("primary", "read a paths filter");
    return this.filters.get(secondaryClusterId);
  }

  private resyncSecondaryOf(clusterId: string): void {
    for (const link of this.secondaries.values()) {
      if (link.node.clusterId === clusterId && link.node.connectionProblem() === undefined) link.node.syncNow();
    }
  }

  /** What the filter of the secondary with this cluster ID keeps from it, in the primary's data. */
  dynamicFilter(secondaryClusterId: string) {
    const filter = this.filters.get(secondaryClusterId);
    const namespaces = allNamespaces(this.state);
    return {
      dynamic_filtered_mounts: namespaces
        .filter((ns) => namespaceIncluded(filter, ns))
        .flatMap((ns) => this.state.mountsOf(ns).filter((m) => !m.isSystem && !m.local && !mountIncluded(filter, m)))
        .map((m) => `${m.namespace.displayPath}${m.displayPath}`),
      dynamic_filtered_namespaces: namespaces.filter((ns) => !namespaceIncluded(filter, ns)).map((ns) => ns.displayPath),
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Secondary side.

  /** Public key a primary may issue a token for (service version 1.3+). */
  generatePublicKey(): string {
    const { publicKey } = generateKeyPairSync("x25519");
    const encoded = publicKey.export({ type: "spki", format: "der" }).toString("base64");
    this.publicKeys.add(encoded);
    return encoded;
  }

  /** Finds the primary a token comes from, by `primary_api_addr` or the token's `addr` claim. */
  private primaryOf(token: string, apiAddress: string): ReplicationNode {
    const address = apiAddress || readActivationClaims(token)?.addr;
    if (!address) throw badRequest("error unwrapping the activation token: it names no primary API address; give primary_api_addr");
    const primary = this.network.byApiAddress(address);
    if (!primary || primary === this) throw badRequest(`error unwrapping the activation token: no primary answers at ${address}`);
    return primary;
  }

  private static checkCa(caFile: string, caPath: string): void {
    if (caFile && !existsSync(caFile)) throw badRequest(`error reading the CA file "${caFile}": no such file`);
    if (caPath && !existsSync(caPath)) throw badRequest(`error reading the CA directory "${caPath}": no such directory`);
  }

  enableSecondary(token: string, apiAddress: string, caFile: string, caPath: string): void {
    this.requireMode("disabled", "enable a performance secondary");
    if (!token) throw badRequest("missing activation token");
    ReplicationNode.checkCa(caFile, caPath);
    const primary = this.primaryOf(token, apiAddress);
    const issued = primary.unwrap(token, this);
    // Every piece of data on the cluster is cleared, at once.
    wipe(this.state);
    this.mode = "secondary";
    this.clusterId = randomUUID();
    this.replicationSet = primary.replicationSet;
    this.follow(primary, issued.secondaryId);
  }

  private follow(primary: ReplicationNode, secondaryId: string): void {
    const now = timestamp(this.network.now());
    this.secondaryId = secondaryId;
    this.primary = { node: primary, clusterAddress: primary.advertisedClusterAddress, apiAddress: primary.apiAddress, lastHeartbeat: now };
    primary.secondaries.set(secondaryId, { secondaryId, node: this, lastHeartbeat: now });
    this.synced = false;
    this.stale = true;
    this.bootstrapReadsLeft = this.network.bootstrapReads;
    this.catchUp();
  }

  promote(clusterAddress: string | undefined, force: boolean): void {
    this.requireMode("secondary", "promote a secondary");
    if (!force) {
      if (this.primary && this.connectionProblem() === undefined) {
        throw badRequest(
          `safety check failed: its primary (${this.primary.clusterAddress}) is still an active primary, and two primaries may lose data: demote that primary first, or promote with force`,
        );
      }
      if (!this.synced) throw badRequest("safety check failed: this secondary never completed a sync from a primary and may hold nothing: promote with force to accept that");
    }
    this.mode = "primary";
    this.advertisedClusterAddress = clusterAddress || this.defaultClusterAddress;
    this.primary = undefined;
    this.secondaryId = "";
    this.lastWal = Math.max(this.lastWal, this.lastRemoteWal);
    this.resetPrimarySide();
  }

  disableSecondary(): void {
    this.requireMode("secondary", "disable a secondary");
    this.leaveReplication();
  }

  updatePrimary(token: string, apiAddress: string, caFile: string, caPath: string): void {
    this.requireMode("secondary", "update the primary of a secondary");
    if (token === "") {
      // A blank token forgets the past primary; the cluster stays a secondary.
      this.primary = undefined;
      this.secondaryId = "";
      return;
    }
    ReplicationNode.checkCa(caFile, caPath);
    const primary = this.primaryOf(token, apiAddress);
    if (primary.replicationSet !== this.replicationSet) {
      throw badRequest(
        `the primary at ${primary.apiAddress} belongs to another replication set (it was enabled anew since this secondary joined): reconnecting needs a storage wipe: disable this secondary and enable it with a token of that primary`,
      );
    }
    const issued = primary.unwrap(token, this);
    const old = this.primary?.node;
    if (old && old.secondaries.get(this.secondaryId)?.node === this) old.secondaries.delete(this.secondaryId);
    // Filters must be made again after a new token is used with update-primary.
    primary.filters.delete(this.clusterId);
    this.follow(primary, issued.secondaryId);
  }

  /** Why this secondary cannot receive from its primary now; undefined when it can. */
  connectionProblem(): string | undefined {
    if (this.mode !== "secondary") return `not a secondary (mode "${this.mode}")`;
    const link = this.primary;
    if (!link) return "no primary is known";
    if (this.network.unreachable.has(link.clusterAddress)) return `cannot reach the primary at ${link.clusterAddress}`;
    const primary = link.node;
    if (primary.mode !== "primary") return `the cluster at ${link.clusterAddress} is no longer a primary (mode "${primary.mode}")`;
    if (primary.replicationSet !== this.replicationSet) return `the primary at ${link.clusterAddress} belongs to another replication set: this secondary needs a storage wipe`;
    if (primary.secondaries.get(this.secondaryId)?.node !== this) return `the primary revoked this secondary ("${this.secondaryId}"): it needs a new activation token (update-primary)`;
    return undefined;
  }

  /** Compares and copies everything now (a connection, a filter change). */
  syncNow(): void {
    this.stale = true;
    this.catchUp();
  }

  /** Brings a secondary that missed changes in line, if it can connect. */
  catchUp(): void {
    if (!this.primary || this.connectionProblem() !== undefined) return;
    const primary = this.primary.node;
    if (this.stale) {
      syncFromPrimary(primary, this, primary.filters.get(this.clusterId));
      for (const token of primary.state.tokens) this.state.tokens.add(token);
      this.stale = false;
      this.synced = true;
    }
    this.lastRemoteWal = primary.lastWal;
    this.heartbeat();
  }

  private heartbeat(): void {
    const now = timestamp(this.network.now());
    if (this.primary) this.primary.lastHeartbeat = now;
    const link = this.primary?.node.secondaries.get(this.secondaryId);
    if (link) link.lastHeartbeat = now;
  }

  // ---------------------------------------------------------------------------------------------
  // Streaming and writes.

  private connectedSecondaries(): ReplicationNode[] {
    return [...this.secondaries.values()].map((l) => l.node).filter((node) => node.primary?.node === this);
  }

  /** A change of this cluster's data: a primary sends it to every secondary that receives it. */
  private onChange(change: KeepChange): void {
    if (this.mode !== "primary" || change.mount.local) return;
    this.lastWal += 1;
    for (const secondary of this.connectedSecondaries()) {
      if (secondary.connectionProblem() !== undefined) {
        secondary.stale = true;
        continue;
      }
      const filter = this.filters.get(secondary.clusterId);
      const received = mountIncluded(filter, change.mount) || (change.mount.isSystem && namespaceIncluded(filter, change.namespace));
      if (received && !secondary.stale && !applyChange(secondary, change)) secondary.stale = true;
      secondary.catchUp();
    }
  }

  /** After a write on a primary: namespaces have no change events, so their trees are compared. */
  afterPrimaryWrite(): void {
    for (const secondary of this.connectedSecondaries()) {
      const filter = this.filters.get(secondary.clusterId);
      const wanted = allNamespaces(this.state).filter((ns) => namespaceIncluded(filter, ns)).map((ns) => ns.path).join("\n");
      const held = allNamespaces(secondary.state).map((ns) => ns.path).join("\n");
      if (wanted !== held) {
        this.lastWal += 1;
        secondary.syncNow();
      }
    }
  }

  /** A secondary refuses writes to replicated paths; it takes its own replication and seal settings, and local mounts. */
  writableOnSecondary(path: string, mountLocal: boolean, mountType: string, body: Record<string, unknown>): boolean {
    if (mountType !== "system") return mountLocal || mountType === "cubbyhole";
    if (/^sys\/(replication|rekey|seal|unseal|generate-root)(\/|$)/.test(path)) return true;
    const mountPath = /^sys\/mounts\/(.+)$/.exec(path)?.[1];
    if (mountPath) {
      const existing = this.state.findMount(this.state.root, mountPath);
      return existing ? existing.local : body.local === true || body.local === "true";
    }
    return false;
  }

  /** Refuses or follows a request, per mode (installed around every operation of the cluster's router). */
  async around<T>(kind: string, request: { path: string; mount: { local: boolean; type: string }; body: Record<string, unknown> }, next: () => Promise<T>): Promise<T> {
    if (isWrite(kind) && this.mode === "secondary" && !this.writableOnSecondary(request.path, request.mount.local, request.mount.type, request.body)) {
      const primary = this.primary ? `; write to the primary at ${this.primary.apiAddress}` : "";
      throw badRequest(
        `cannot write to "${request.path}" on a performance secondary: the path is replicated from the primary and this cluster does not forward writes${primary}, or to a local mount`,
      );
    }
    const result = await next();
    if (isWrite(kind) && this.mode === "primary") this.afterPrimaryWrite();
    return result;
  }

  // ---------------------------------------------------------------------------------------------
  // Status.

  /** The secondary's replication state, as its status reports it. */
  private secondaryState(): string {
    if (!this.primary) return "idle";
    if (this.connectionProblem() !== undefined) return "connecting";
    if (this.bootstrapReadsLeft > 0) {
      this.bootstrapReadsLeft -= 1;
      return "bootstrapping";
    }
    return "stream-wals";
  }

  /** `data` of `GET sys/replication/performance/status`. */
  status(): Record<string, unknown> {
    if (this.mode === "disabled") return { mode: "disabled" };
    if (this.mode === "primary") {
      for (const secondary of this.connectedSecondaries()) secondary.catchUp();
      const links = [...this.secondaries.values()].sort((a, b) => a.secondaryId.localeCompare(b.secondaryId));
      // A secondary is known from its token's issue on, as the service lists it, connected or not.
      const known = new Set([...links.map((l) => l.secondaryId), ...[...this.tokens.values()].map((t) => t.secondaryId)]);
      return {
        cluster_id: this.clusterId,
        known_secondaries: [...known].sort(),
        last_wal: this.lastWal,
        merkle_root: merkleRoot(this),
        mode: "primary",
        primary_cluster_addr: this.advertisedClusterAddress,
        secondaries: links.map((l) => ({
          api_address: l.node.apiAddress,
          cluster_address: l.node.defaultClusterAddress,
          connection_status: l.node.primary?.node === this && l.node.connectionProblem() === undefined ? "connected" : "disconnected",
          last_heartbeat: l.lastHeartbeat,
          node_id: `${l.node.name}-node-1`,
        })),
      };
    }
    this.catchUp();
    const problem = this.primary ? this.connectionProblem() : undefined;
    return {
      cluster_id: this.clusterId,
      known_primary_cluster_addrs: this.primary ? [this.primary.clusterAddress] : [],
      last_remote_wal: this.lastRemoteWal,
      merkle_root: merkleRoot(this),
      mode: "secondary",
      primaries: this.primary
        ? [
            {
              api_address: this.primary.apiAddress,
              cluster_address: this.primary.clusterAddress,
              connection_status: problem === undefined ? "connected" : "disconnected",
              last_heartbeat: this.primary.lastHeartbeat,
            },
          ]
        : [],
      primary_cluster_addr: this.primary?.clusterAddress ?? "",
      secondary_id: this.secondaryId,
      state: this.secondaryState(),
      ...(problem ? { connection_error: problem } : {}),
    };
  }

  /** The secondary's own view of what its primary's filter keeps from it. */
  ownDynamicFilter() {
    if (this.mode !== "secondary" || !this.primary) return { dynamic_filtered_mounts: [], dynamic_filtered_namespaces: [] };
    return this.primary.node.dynamicFilter(this.clusterId);
  }
}
