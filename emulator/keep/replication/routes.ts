/**
 * Routes of performance replication (`sys/replication/performance/...`) on one cluster of the
 * emulator, and the hook that makes a secondary refuse writes to replicated paths and a primary
 * follow its namespaces. Replication is configured in the root namespace only.
 */
import { readBool, readEnum, readString, readStringList } from "../fields";
import { badRequest, envelope, ok } from "../replies";
import type { KeepHandler, KeepOperation, KeepRequest, KeepRouter } from "../router";
import type { ReplicationNode } from "./node";

const PREFIX = "sys/replication/performance";

function rootOnly(request: KeepRequest): void {
  if (!request.namespace.isRoot) throw badRequest("replication is configured in the root namespace only");
}

/** A write operation answering 204, in the root namespace only. */
function action(summary: string, run: (request: KeepRequest) => void): KeepOperation {
  return {
    summary,
    handler: (request) => {
      rootOnly(request);
      run(request);
    },
  };
}

const read = (summary: string, handler: KeepHandler): KeepOperation => ({
  summary,
  handler: (request) => {
    rootOnly(request);
    return handler(request);
  },
});


/** Registers the replication routes of `node`'s cluster and its write hook. */
export function registerReplicationRoutes(router: KeepRouter, node: ReplicationNode): void {
  router.operationHooks.push((request, kind, next) => node.around(kind, { path: request.path, mount: request.mount, body: request.body }, next));

  router.add({
    path: `${PREFIX}/status`,
    summary: "Performance replication status of this cluster.",
    unauthenticated: true,
    operations: { read: read("Read the replication status (no token needed).", () => ok({ data: node.status() })) },
  });

  router.add({
    path: `${PREFIX}/primary/enable`,
    summary: "Makes this cluster a performance primary.",
    operations: { write: action("Enable replication as a primary.", ({ body }) => node.enablePrimary(readString(body, "primary_cluster_addr"))) },
  });
  router.add({
    path: `${PREFIX}/primary/demote`,
    summary: "Demotes this primary to a secondary connected to no primary.",
    operations: { write: action("Demote the primary.", () => node.demotePrimary()) },
  });
  router.add({
    path: `${PREFIX}/primary/disable`,
    summary: "Disables replication on this primary.",
    operations: { write: action("Disable the primary; its secondaries can no longer connect.", () => node.disablePrimary()) },
  });
  router.add({
    path: `${PREFIX}/primary/secondary-token`,
    summary: "Activation tokens for secondaries (sudo).",
    operations: {
      write: {
        summary: "Generate a wrapped activation token for a secondary.",
        status: 200,
        handler: (request) => {
          rootOnly(request);
          const { body } = request;
          const wrap = node.issueToken(readString(body, "id", { required: true }), body.ttl, readString(body, "secondary_public_key") ?? "", request.token);
          return ok(envelope(null, { wrapInfo: wrap }));
        },
      },
    },
  });
  router.add({
    path: `${PREFIX}/primary/revoke-secondary`,
    summary: "Revokes a secondary's connection.",
    operations: { write: action("Revoke the secondary; it disconnects at once.", ({ body }) => node.revokeSecondary(readString(body, "id", { required: true }))) },
  });
  router.add({
    path: `${PREFIX}/primary/paths-filter/:id`,
    summary: "The paths filter of one secondary, by its cluster ID.",
    params: { id: "Cluster ID of the secondary (`cluster_id` of its status)." },
    operations: {
      read: read("Read the paths filter; 200 with no body when there is none.", ({ params }) => {
        const filter = node.readFilter(params.id);
        return filter ? ok({ mode: filter.mode, paths: [...filter.paths] }) : { status: 200 };
      }),
      write: action("Create or replace the paths filter.", ({ params, body }) => {
        node.setFilter(params.id, { mode: readEnum(body, "mode", ["allow", "deny"] as const) ?? "allow", paths: readStringList(body, "paths") ?? [] });
      }),
      delete: action("Delete the paths filter.", ({ params }) => node.deleteFilter(params.id)),
    },
  });
  router.add({
    path: `${PREFIX}/primary/dynamic-filter/:id`,
    summary: "What the primary keeps from one secondary, by the secondary's cluster ID.",
    params: { id: "Cluster ID of the secondary." },
    operations: {
      read: read("Read the dynamic filter; 200 with no body for an unknown secondary.", ({ params }) => {
        if (node.mode !== "primary") throw badRequest(`this cluster is not a performance primary (mode "${node.mode}")`);
        const known = [...node.secondaries.values()].some((link) => link.node.clusterId === params.id);
        return known ? ok(node.dynamicFilter(params.id)) : { status: 200 };
      }),
    },
  });
  router.add({
    path: `${PREFIX}/secondary/dynamic-filter/:id`,
    summary: "What this secondary's primary keeps from it.",
    params: { id: "Cluster ID of this secondary." },
    operations: {
      read: read("Read the dynamic filter; 200 with no body when the ID is not this secondary's.", ({ params }) => {
        if (node.mode !== "secondary") throw badRequest(`this cluster is not a performance secondary (mode "${node.mode}")`);
        return params.id === node.clusterId ? ok(node.ownDynamicFilter()) : { status: 200 };
      }),
    },
  });
  router.add({
    path: `${PREFIX}/secondary/generate-public-key`,
    summary: "A public key a primary can issue an activation token for.",
    operations: {
      write: {
        summary: "Generate the key.",
        status: 200,
        handler: (request) => {
          rootOnly(request);
          return ok(envelope({ secondary_public_key: node.generatePublicKey() }));
        },
      },
    },
  });
  router.add({
    path: `${PREFIX}/secondary/enable`,
    summary: "Makes this cluster a performance secondary; every piece of its data is wiped.",
    operations: {
      write: action("Enable replication as a secondary with an activation token.", ({ body }) =>
        node.enableSecondary(readString(body, "token") ?? "", readString(body, "primary_api_addr") ?? "", readString(body, "ca_file") ?? "", readString(body, "ca_path") ?? ""),
      ),
    },
  });
  router.add({
    path: `${PREFIX}/secondary/promote`,
    summary: "Promotes this secondary to a primary.",
    operations: { write: action("Promote the secondary.", ({ body }) => node.promote(readString(body, "primary_cluster_addr"), readBool(body, "force") ?? false)) },
  });
  router.add({
    path: `${PREFIX}/secondary/disable`,
    summary: "Disables replication on this secondary.",
    operations: { write: action("Disable the secondary.", () => node.disableSecondary()) },
  });
  router.add({
    path: `${PREFIX}/secondary/update-primary`,
    summary: "Points this secondary at a new primary, without a wipe.",
    operations: {
      write: action("Update the primary with a new activation token (blank: forget the primary).", ({ body }) => {
        if (body.token === undefined || body.token === null) throw badRequest("'token' parameter not supplied (a blank string forgets the primary)");
        node.updatePrimary(String(body.token), readString(body, "primary_api_addr") ?? "", readString(body, "ca_file") ?? "", readString(body, "ca_path") ?? "");
      }),
    },
  });
}
