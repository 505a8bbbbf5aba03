/**
 * Mount table routes of the secrets service emulator (`sys/mounts`): list, read, enable and
 * disable secrets engines at paths of the current namespace, answered as the system backend does.
 */
import { RequestBody, readBool, readString } from "./fields";
import { badRequest, notFound, systemReply } from "./replies";
import type { KeepRouter } from "./router";
import type { KeepMount, MountSettings } from "./state";

/** The service accepts `kv-v2` as a type: a key-value engine with `version` 2. */
export function resolveMountType(type: string, options: Record<string, string> = {}): { type: string; options: Record<string, string> } {
  if (type === "kv-v2") return { type: "kv", options: { ...options, version: "2" } };
  return { type, options };
}

/** One row of the mount table, as `sys/mounts` shows it. */
export function viewMount(mount: KeepMount) {
  return {
    accessor: mount.accessor,
    config: { ...mount.config },
    description: mount.description,
    external_entropy_access: false,
    local: mount.local,
    options: Object.keys(mount.options).length > 0 ? { ...mount.options } : null,
    plugin_version: "",
    running_plugin_version: "",
    running_sha256: "",
    seal_wrap: mount.sealWrap,
    type: mount.type,
    uuid: mount.uuid,
  };
}

function readStringMap(body: RequestBody, field: string): Record<string, string> | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) throw badRequest(`'${field}' must be an object`);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
}

export function registerMountRoutes(router: KeepRouter): void {
  router.add({
    path: "sys/mounts",
    summary: "The mount table of the current namespace.",
    operations: {
      read: {
        summary: "List the mounted secrets engines by path.",
        handler: ({ state, namespace }) => {
          return systemReply(Object.fromEntries(state.mountsOf(namespace).map((mount) => [mount.displayPath, viewMount(mount)])));
        },
      },
    },
  });

  router.add({
    path: "sys/mounts/:path*",
    summary: "One mount of the current namespace.",
    params: { path: "Path the engine is mounted at." },
    operations: {
      read: {
        summary: "Read the mount.",
        handler: ({ state, namespace, params }) => {
          const mount = state.findMount(namespace, params.path);
          if (!mount) throw notFound();
          return systemReply(viewMount(mount));
        },
      },
      write: {
        summary: "Mount a secrets engine at the path.",
        handler: ({ state, namespace, params, body }) => {
          const { type, options } = resolveMountType(readString(body, "type", { required: true }), readStringMap(body, "options"));
          const config = body.config;
          if (config !== undefined && config !== null && (typeof config !== "object" || Array.isArray(config))) {
            throw badRequest("'config' must be an object");
          }
          const settings: MountSettings = {
            options,
            description: readString(body, "description") ?? "",
            config: (config as Record<string, unknown> | undefined) ?? undefined,
            local: readBool(body, "local") ?? false,
            sealWrap: readBool(body, "seal_wrap") ?? false,
          };
          state.mount(namespace, params.path, type, settings);
        },
      },
      delete: {
        summary: "Unmount the engine and delete everything it stores.",
        handler: ({ state, namespace, params }) => {
          // Unmounting an absent path succeeds, as in the service.
          state.unmount(namespace, params.path);
        },
      },
    },
  });
}
