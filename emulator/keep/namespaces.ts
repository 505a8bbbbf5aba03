/**
 * Namespace routes of the secrets service emulator (`sys/namespaces`). A namespace is created
 * inside the namespace the request resolves to, so nesting goes through the header or a path prefix.
 */
import { RequestBody } from "./fields";
import { badRequest, envelope, notFound, ok, requireListResults } from "./replies";
import type { KeepRouter } from "./router";
import type { KeepNamespace } from "./state";

export function viewNamespace(namespace: KeepNamespace) {
  return { custom_metadata: { ...namespace.customMetadata }, id: namespace.id, path: namespace.displayPath };
}

/** `custom_metadata` is a map of strings; in a patch a null value removes the key. */
function readCustomMetadata(body: RequestBody, allowNull: boolean): Record<string, string | null> | undefined {
  const value = body.custom_metadata;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) throw badRequest("'custom_metadata' must be an object of strings");
  for (const entry of Object.values(value)) {
    if (typeof entry === "string" || (allowNull && entry === null)) continue;
    throw badRequest("'custom_metadata' must be an object of strings");
  }
  return value as Record<string, string | null>;
}

export function registerNamespaceRoutes(router: KeepRouter): void {
  router.add({
    path: "sys/namespaces",
    summary: "Namespaces directly under the current namespace.",
    operations: {
      list: {
        summary: "List child namespaces.",
        handler: ({ state, namespace }) => {
          const children = state.childrenOf(namespace);
          const keys = children.map((child) => child.displayPath.slice(namespace.displayPath.length));
          requireListResults(keys);
          const keyInfo = Object.fromEntries(children.map((child, i) => [keys[i], viewNamespace(child)]));
          return ok(envelope({ key_info: keyInfo, keys }));
        },
      },
    },
  });

  router.add({
    path: "sys/namespaces/:path",
    summary: "One child namespace of the current namespace.",
    params: { path: "Name of the namespace, relative to the current namespace." },
    operations: {
      read: {
        summary: "Read the namespace.",
        handler: ({ state, namespace, params }) => {
          const child = state.findNamespace(`${namespace.path}/${params.path}`);
          if (!child) throw notFound();
          return ok(envelope(viewNamespace(child)));
        },
      },
      write: {
        summary: "Create the namespace.",
        status: 200,
        handler: ({ state, namespace, params, body }) => {
          const metadata = readCustomMetadata(body, false);
          // Writing an existing namespace answers it unchanged apart from metadata, so a retried
          // create does not fail.
          const child = state.createChildNamespace(namespace, params.path);
          if (metadata) child.customMetadata = metadata as Record<string, string>;
          return ok(envelope(viewNamespace(child)));
        },
      },
      patch: {
        summary: "Update the namespace's custom metadata.",
        status: 200,
        handler: ({ state, namespace, params, body }) => {
          const child = state.findNamespace(`${namespace.path}/${params.path}`);
          if (!child) throw notFound();
          for (const [key, value] of Object.entries(readCustomMetadata(body, true) ?? {})) {
            if (value === null) delete child.customMetadata[key];
            else child.customMetadata[key] = value;
          }
          return ok(envelope(viewNamespace(child)));
        },
      },
      delete: {
        summary: "Delete the namespace and everything in it; it must have no child namespaces.",
        handler: ({ state, namespace, params }) => {
          const child = state.findNamespace(`${namespace.path}/${params.path}`);
          // Deleting an absent namespace succeeds, like the service's other deletes.
          if (child) state.deleteNamespace(child);
        },
      },
    },
  });
}
