/**
 * `npm run docs`: writes the README's configuration table (from `SETTINGS`, provider/config.ts) and
 * docs/resources.md's resource table (from the registry, resources/all-specs.ts, and each class's
 * JSDoc) and its program of every type's example (from each spec's `example`) between their marker
 * comments. tests/docs/readme.test.ts fails when a page differs from what
 * this writes.
 *
 * A resource's class JSDoc gives its description and, after `ID:`, the form of its natural ID: the
 * same text users read in their editor.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { PLUGIN_PACKAGE, pluginSettingName, SETTINGS } from "../provider/config";
import { createGuardOf } from "../provider/object-machine";
import { AnySpec, isOperationSpec, pluginTokenOf, ResourceSpec, ServiceModule, tokenOf } from "../provider/spec";
import { registeredResources } from "../resources/all-specs";
import { kebab, LINE, literal } from "./schema-examples";

const repoRoot = path.resolve(__dirname, "..");
export const README_PATH = path.join(repoRoot, "README.md");
export const RESOURCES_PAGE_PATH = path.join(repoRoot, "docs", "resources.md");

/** A table cell: one line, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|").trim();
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map((r) => line(r.map(cell)))].join("\n");
}

const code = (text: string) => `\`${text}\``;

export function configurationTable(): string {
  const rows = (Object.keys(SETTINGS) as ServiceModule[]).flatMap((service) =>
    SETTINGS[service].map((s) => [
      code(`${service}:${s.key}`),
      code(`${PLUGIN_PACKAGE}:${pluginSettingName(service, s.key)}`),
      s.env ? code(s.env) : "",
      s.default !== undefined ? code(s.default) : "",
      s.description,
    ]),
  );
  return table(["stack config key", "the plugin's key", "environment variable", "default", "what"], rows);
}

/** The JSDoc of each exported class, by export path (`keep.AclPolicy`), read from the sources. */
export function classDocs(paths: readonly string[]): Map<string, string> {
  const configPath = path.join(repoRoot, "tsconfig.json");
  const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, repoRoot);
  const program = ts.createProgram([path.join(repoRoot, "index.ts")], { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const entry = program.getSourceFile(path.join(repoRoot, "index.ts"));
  const moduleSymbol = entry && checker.getSymbolAtLocation(entry);
  if (!moduleSymbol) throw new Error("cannot read the exports of index.ts");
  const resolve = (symbol: ts.Symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  const docs = new Map<string, string>();
  for (const exportPath of paths) {
    let symbol: ts.Symbol | undefined = moduleSymbol;
    for (const name of exportPath.split(".")) {
      symbol = symbol && checker.getExportsOfModule(symbol).find((s) => s.name === name);
      symbol = symbol && resolve(symbol);
    }
    if (!symbol) throw new Error(`${exportPath} is registered but not exported by index.ts`);
    docs.set(exportPath, ts.displayPartsToString(symbol.getDocumentationComment(checker)));
  }
  return docs;
}

function listOf(keys: readonly string[] | undefined): string {
  return keys && keys.length ? keys.map(code).join(", ") : "none";
}

/**
 * Splits a class's JSDoc into its ID form (the sentence after `ID:`, without its period) and the
 * rest (what the resource is, and anything said after the ID).
 */
export function splitDoc(doc: string): { description: string; id?: string } {
  const match = /\bID:\s*/.exec(doc);
  if (!match) return { description: doc.trim() };
  const after = doc.slice(match.index + match[0].length);
  const end = /\.(?:\s+(?=[A-Z])|\s*$)/.exec(after);
  const id = (end ? after.slice(0, end.index) : after).trim();
  const rest = end ? after.slice(end.index + end[0].length) : "";
  return { description: `${doc.slice(0, match.index)} ${rest}`.replace(/\s+/g, " ").trim(), id };
}

function resourceRow(exportPath: string, spec: AnySpec, doc: string): string[] {
  const split = splitDoc(doc);
  const description = split.description || spec.description || "";
  if (isOperationSpec(spec)) {
    return [code(exportPath), description, code(tokenOf(spec)), code(pluginTokenOf(spec)), split.id ?? "unique per run", "every input, and `triggers` (it runs again)", "an operation: none", "an operation: none", listOf(spec.secretOutputs)];
  }
  if (!split.id) throw new Error(`${exportPath}: its class JSDoc must say the form of its ID ("ID: the name, or \`<namespace>:<name>\`.")`);
  return [code(exportPath), description, code(tokenOf(spec)), code(pluginTokenOf(spec)), split.id, listOf(spec.replaceOnChanges), existingObjectCell(spec), ownerRecordCell(spec), listOf(spec.secretOutputs)];
}

/** Where the service keeps the record of the stack that made an object, or that its API has no room for one. */
function ownerRecordCell(spec: ResourceSpec): string {
  if (spec.ownerRecord) return `${spec.ownerRecord.where}${spec.ownerRecord.rewritable ? "" : " (not rewritten by a takeover)"}`;
  return spec.alwaysNew ? "none needed (always a new one)" : "no room in the API: the create journal";
}

/** What a create does about an object of its ID that is there already (ARCHITECTURE.md, "One owner"). */
function existingObjectCell(spec: ResourceSpec): string {
  switch (createGuardOf(spec)) {
    case "atomic":
      return "refused by the service";
    case "always-new":
      return "always a new one";
    default:
      return spec.inUse ? "read first; refused unless it holds the defaults" : "read first; refused";
  }
}

export function resourceTable(): string {
  const docs = classDocs(registeredResources.map((r) => r.path));
  const rows = registeredResources.map((r) => resourceRow(r.path, r.spec, docs.get(r.path) ?? ""));
  return table(["resource", "what", "type token", "the plugin's token", "natural ID (for `adopt`, `get`, import)", "forces replacement", "an object already there ([one owner](#one-owner))", "the owner's record ([one owner](#who-made-it))", "secret outputs"], rows);
}

/** An example's logical name: its class's path below the service, in lower case, words joined by hyphens (`sync-config`). */
const logicalName = (exportPath: string) => exportPath.split(".").slice(1).map(kebab).join("-");

/**
 * One program declaring every registered type with its example inputs (the first of `spec.example`,
 * the values the registry-wide tests run): docs/resources.md shows it, tests/types compiles it.
 */
export function examplesProgram(): string {
  const namespaces = [...new Set(registeredResources.map((r) => r.path.split(".")[0]))].sort();
  const lines = [`import { ${namespaces.join(", ")} } from "pulumi-keepstack";`, ""];
  for (const { path: exportPath, spec } of registeredResources) {
    if (!spec.example) throw new Error(`${exportPath}: its spec has no example`);
    const head = `new ${exportPath}("${logicalName(exportPath)}", `;
    lines.push(`${head}${literal(spec.example.inputs(0), "", LINE - head.length - 2)});`);
  }
  return lines.join("\n");
}

/** The examples section of docs/resources.md: the program, marked as compiled by its test. */
export function examplesSection(): string {
  return ["<!-- runs in tests/types/types.test.ts -->", "```ts", examplesProgram(), "```"].join("\n");
}

/** Replaces the text between `<!-- generated:<name> -->` and `<!-- /generated:<name> -->`. */
export function replaceSection(text: string, name: string, content: string): string {
  const open = `<!-- generated:${name} -->`;
  const close = `<!-- /generated:${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`the page has no ${open} … ${close} section`);
  const note = `<!-- written by \`npm run docs\`; edit the sources, not this table -->`;
  return `${text.slice(0, start)}${open}\n${note}\n\n${content}\n\n${text.slice(end)}`;
}

/** The README as `npm run docs` writes it. */
export function generatedReadme(current: string): string {
  return replaceSection(current, "configuration", configurationTable());
}

/** docs/resources.md as `npm run docs` writes it. */
export function generatedResourcesPage(current: string): string {
  return replaceSection(replaceSection(current, "resources", resourceTable()), "examples", examplesSection());
}

/** Each generated page: its path and how it is written. */
export const GENERATED_PAGES: { path: string; generate: (current: string) => string }[] = [
  { path: README_PATH, generate: generatedReadme },
  { path: RESOURCES_PAGE_PATH, generate: generatedResourcesPage },
];

if (require.main === module) {
  for (const page of GENERATED_PAGES) {
    const current = fs.readFileSync(page.path, "utf8");
    const next = page.generate(current);
    const name = path.relative(repoRoot, page.path);
    if (next === current) {
      console.log(`${name} is up to date`);
    } else {
      fs.writeFileSync(page.path, next);
      console.log(`${name}: tables written`);
    }
  }
}
