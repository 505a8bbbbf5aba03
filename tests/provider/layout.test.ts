/**
 * The house: provider/ is the ground floor (the machine, the clients, configuration) and never
 * reaches up into resources/, where the registry and the host's entry point that dispatches to it
 * live; no two modules of provider/ import each other, even for types only; and resources send
 * their requests as rows of a service's contract (provider/contracts/), never by a path of their own.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const root = path.join(__dirname, "..", "..");
const providerDir = path.join(root, "provider");

/** Each module of provider/ and the relative modules it imports (values and types alike). */
function importsOf(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(providerDir)) {
    const text = fs.readFileSync(file, "utf8");
    const targets = [...text.matchAll(/(?:from|import)\s+"(\.{1,2}\/[^"]+)"/g)].map((m) => path.relative(root, path.resolve(path.dirname(file), m[1])));
    graph.set(path.relative(root, file).replace(/\.ts$/, ""), targets);
  }
  return graph;
}

function cyclesOf(graph: Map<string, string[]>): string[] {
  const found = new Set<string>();
  const visit = (node: string, stack: string[]) => {
    const at = stack.indexOf(node);
    if (at >= 0) return void found.add([...stack.slice(at), node].join(" -> "));
    for (const next of graph.get(node) ?? []) visit(next, [...stack, node]);
  };
  for (const node of graph.keys()) visit(node, []);
  return [...found];
}

test("provider/ imports nothing from resources/ (the host's entry point sits beside the registry)", () => {
  const upward = [...importsOf()].flatMap(([from, targets]) => targets.filter((t) => !t.startsWith("provider/")).map((t) => `${from} -> ${t}`));
  expect(upward).toEqual([]);
  expect(fs.existsSync(path.join(root, "resources", "host.ts"))).toBe(true);
});

test("no import cycle inside provider/, type-only imports included", () => {
  expect(cyclesOf(importsOf())).toEqual([]);
  // The check sees a cycle where there is one.
  expect(cyclesOf(new Map([["a", ["b"]], ["b", ["a"]]]))).toEqual(expect.arrayContaining(["a -> b -> a"]));
});

/** The TypeScript files under a directory, at any depth. */
function sourceFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith(".ts")).map((f) => path.join(dir, f));
}

test("no path is assembled by hand: values go into paths through route templates (provider/paths.ts)", () => {
  const handMade: string[] = [];
  for (const file of [...sourceFiles(providerDir), ...sourceFiles(path.join(root, "resources"))]) {
    if (file.endsWith(path.join("provider", "paths.ts"))) continue;
    fs.readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (/\/\$\{(encodeURIComponent|encodePath)\(/.test(line)) handMade.push(`${path.relative(root, file)}:${i + 1}`);
      });
  }
  expect(handMade).toEqual([]);
});

test("resources and the commands send every request as a row of a contract: no client call by path", () => {
  const byPath: string[] = [];
  for (const file of ["resources", "cli", "policy"].flatMap((dir) => sourceFiles(path.join(root, dir)))) {
    const text = fs.readFileSync(file, "utf8");
    // A client call is `client.read(`, `ctx.keep().write(`, `ctx.workspaces().list(` ...; rows go through `send`.
    for (const m of text.matchAll(/(?:client|\.(?:keep|workspaces|mesh)\([^)]*\))\s*\.\s*(read|write|delete|list|request|action)\(/g)) {
      byPath.push(`${path.relative(root, file)}:${text.slice(0, m.index).split("\n").length} ${m[1]}`);
    }
  }
  // Not listed: `upload`, which streams to a URL the service gives (the archive store), not to its API,
  // and `openRedirected`, which sends its row and follows the redirect to such a URL.
  expect(byPath).toEqual([]);
});

test("every endpoint the package calls is declared in provider/contracts/: no row is made anywhere else", () => {
  const elsewhere: string[] = [];
  for (const file of ["provider", "resources", "cli", "policy"].flatMap((dir) => sourceFiles(path.join(root, dir)))) {
    const relative = path.relative(root, file);
    // The contract's own modules, and the module that defines what a row is.
    if (relative.startsWith(path.join("provider", "contracts")) || relative === path.join("provider", "contract.ts")) continue;
    const text = fs.readFileSync(file, "utf8");
    for (const m of text.matchAll(/\b(endpoint|objectAt)\(\s*[`"']/g)) elsewhere.push(`${relative}:${text.slice(0, m.index).split("\n").length} ${m[1]}`);
  }
  expect(elsewhere).toEqual([]);
});
