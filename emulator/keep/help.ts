/**
 * `?help=1` answers of the secrets service emulator: a markdown text and an OpenAPI 3.0.2
 * document for the queried path and the routes under it, with paths relative to the queried path.
 */
import type { CompiledRoute, KeepOperationKind, PathSegment } from "./router";
import type { KeepNamespace } from "./state";

const OPERATION_LABELS: Record<KeepOperationKind, string> = {
  read: "`GET`",
  list: "`GET ?list=true` (`LIST`)",
  write: "`POST`, `PUT`",
  delete: "`DELETE`",
  patch: "`PATCH`",
};

const OPENAPI_METHODS: Record<KeepOperationKind, string> = {
  read: "get",
  list: "get",
  write: "post",
  delete: "delete",
  patch: "patch",
};

const ORDER: KeepOperationKind[] = ["read", "list", "write", "patch", "delete"];

function displaySegment(segment: PathSegment): string {
  return segment.kind === "literal" ? segment.value : `:${segment.name}${segment.kind === "rest" ? "*" : ""}`;
}

function openApiSegment(segment: PathSegment): string {
  return segment.kind === "literal" ? segment.value : `{${segment.name}}`;
}

/** Whether `compiled` is the queried path or lies under it; returns the segments past the query. */
function remainderUnder(compiled: CompiledRoute, query: string[]): PathSegment[] | undefined {
  for (let i = 0; i < query.length; i++) {
    const segment = compiled.segments[i];
    if (!segment) return undefined;
    if (segment.kind === "rest") return [];
    if (segment.kind === "literal" && segment.value !== query[i]) return undefined;
  }
  return compiled.segments.slice(query.length);
}

function successStatus(kind: KeepOperationKind, status?: number): string {
  return String(status ?? (kind === "read" || kind === "list" ? 200 : 204));
}

function pathItem(compiled: CompiledRoute, remainder: PathSegment[]) {
  const { route } = compiled;
  const item: Record<string, unknown> = { description: route.summary };
  const parameters = remainder
    .filter((s): s is Exclude<PathSegment, { kind: "literal" }> => s.kind !== "literal")
    .map((s) => ({
      name: s.name,
      description: route.params?.[s.name] ?? `the ${s.name} path parameter`,
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
  if (parameters.length > 0) item.parameters = parameters;
  if (route.unauthenticated) item["x-keep-unauthenticated"] = true;
  for (const kind of ORDER) {
    const operation = route.operations[kind];
    if (!operation) continue;
    const method = OPENAPI_METHODS[kind];
    const entry: Record<string, unknown> = {
      summary: operation.summary,
      responses: { [successStatus(kind, operation.status)]: { description: "OK" } },
    };
    if (kind === "list") {
      // A path with both read and list documents them as one GET whose `list` is optional.
      const listParameter = {
        name: "list",
        description: "Return a list of keys",
        in: "query",
        required: !route.operations.read,
        schema: { type: "string", enum: ["true"] },
      };
      const read = item[method] as Record<string, unknown> | undefined;
      if (read) {
        read.summary = `${read.summary} / ${operation.summary}`;
        read.parameters = [listParameter];
        continue;
      }
      entry.parameters = [listParameter];
    }
    item[method] = entry;
  }
  return item;
}

function operationLines(compiled: CompiledRoute): string[] {
  return ORDER.filter((kind) => compiled.route.operations[kind]).map(
    (kind) => `- ${OPERATION_LABELS[kind]}: ${compiled.route.operations[kind]!.summary}`,
  );
}

/**
 * Help for `query` (route path segments after the namespace); undefined when nothing is
 * routed at or under that path.
 */
export function buildHelp(
  routes: readonly CompiledRoute[],
  query: string[],
  exact: CompiledRoute | undefined,
  namespace: KeepNamespace,
) {
  const under = routes
    .map((compiled) => ({ compiled, remainder: remainderUnder(compiled, query) }))
    .filter((entry): entry is { compiled: CompiledRoute; remainder: PathSegment[] } => entry.remainder !== undefined)
    .sort((a, b) => a.compiled.route.path.localeCompare(b.compiled.route.path));
  if (!exact && under.length === 0) return undefined;

  const paths: Record<string, unknown> = {};
  for (const { compiled, remainder } of under) {
    paths[`/${remainder.map(openApiSegment).join("/")}`] = pathItem(compiled, remainder);
  }

  const queried = query.join("/");
  const where = namespace.isRoot ? "" : ` (namespace \`${namespace.displayPath}\`)`;
  const lines: string[] = [];
  if (exact) {
    lines.push(`## ${exact.segments.map(displaySegment).join("/")}`, "", exact.route.summary + where, "", "### Operations", "");
    lines.push(...operationLines(exact));
    if (exact.route.unauthenticated) lines.push("", "This path does not require a token.");
  } else {
    lines.push(`## ${queried === "" ? "/" : queried}`, "", `Paths under this path${where}:`, "");
    for (const { compiled, remainder } of under) {
      lines.push(`- \`${remainder.map(displaySegment).join("/")}\`: ${compiled.route.summary}`);
    }
  }
  lines.push("", "This answer comes from the local emulator of the secrets service.");

  return {
    help: lines.join("\n"),
    openapi: {
      openapi: "3.0.2",
      info: {
        title: "Secrets service HTTP API (local emulator)",
        description: "HTTP API of the secrets service. All API routes are prefixed with `/v1/`.",
        version: "1",
      },
      paths,
    },
  };
}
