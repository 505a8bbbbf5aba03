/**
 * `pulumi-keepstack import`: reads objects that already exist on a service and prints the TypeScript
 * that declares them with `adopt: true`, so a program can take them over (the Pulumi CLI's own
 * import cannot serve dynamic resources); or, with `--format pulumi-import`, the file that
 * `pulumi import --file` takes, so the CLI adopts them through the keepstack plugin into a program
 * of any language. `import --all` takes every listable object of every configured service at once.
 * Settings come from the environment (KEEP_ADDR, ...) and `--config key=value`, as for the provider.
 */
import { Command } from "commander";
import { createContext, OperationContext } from "../provider/context";
import { isOperationSpec, ResourceSpec, shortTypeOf, tokenOf } from "../provider/spec";
import { allSpecs } from "../resources/all-specs";
import { importAll, LeftOut, leftOutSummary, requireNamespace } from "./import-all";
import { importFile, inputsToAdd } from "./import-file";
import { configCommands, ImportedObject, renderProgram } from "./program-text";
import * as fs from "node:fs";

/** Objects that exist on a service, as opposed to operations: those the command can import. */
const objectSpecs = allSpecs.filter((s): s is ResourceSpec => !isOperationSpec(s));

/** The object spec of `keep:AclPolicy`, `keep.AclPolicy` or either door's token; undefined for any other type. */
export function objectSpecOf(type: string): ResourceSpec | undefined {
  const short = shortTypeOf(type).replace(".", ":");
  return objectSpecs.find((s) => shortTypeOf(tokenOf(s)) === short);
}

/** `keep:AclPolicy`, `keep.AclPolicy` or the full token. */
export function specOf(type: string): ResourceSpec {
  const spec = objectSpecOf(type);
  if (!spec) {
    const known = objectSpecs.map((s) => shortTypeOf(tokenOf(s))).join(", ");
    throw new Error(`unknown resource type "${type}"; known types: ${known}`);
  }
  return spec;
}

export async function importObjects(ctx: OperationContext, spec: ResourceSpec, ids: string[]): Promise<ImportedObject[]> {
  if (spec.notImportable) throw new Error(`${shortTypeOf(tokenOf(spec))} cannot be imported: ${spec.notImportable}`);
  const objects: ImportedObject[] = [];
  for (const id of ids) {
    const found = await spec.read(ctx, id);
    if (!found) throw new Error(`${tokenOf(spec)}: no object with ID "${id}" exists`);
    objects.push({ spec, id: found.id ?? id, inputs: { ...spec.fromId(id), ...found.inputs }, owner: found.owner });
  }
  return objects;
}

function contextOf(pairs: string[]): OperationContext {
  return createContext(lookupOf(pairs));
}

function lookupOf(pairs: string[]): (key: string) => string | undefined {
  const config: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq < 1) throw new Error(`--config takes key=value (for example keep:address=https://keep.example:8200), got "${pair}"`);
    config[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return (key) => config[key];
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Where a listing looked, in words: the namespace or organization the settings name. */
function scopeOf(ctx: OperationContext, spec: ResourceSpec): string {
  if (spec.module === "keep") {
    const namespace = ctx.config("keep").namespace;
    return namespace ? `in namespace "${namespace}"` : "in the root namespace";
  }
  if (spec.module === "workspaces") {
    const organization = ctx.config("workspaces").organization;
    return organization ? `in organization "${organization}"` : "";
  }
  return "";
}

/** Adds `import` and `types` to the package's command. */
export function addImportCommands(program: Command): void {
  program
    .command("import")
    .description("print TypeScript declaring existing objects with adopt: true")
    .argument("[type]", "resource type, e.g. keep:AclPolicy or workspaces:Workspace; left out with --all: every type")
    .argument("[ids...]", "natural IDs of the objects (see the README's resource table)")
    .option("--all", "every object of that type in the configured scope; without a type, every listable object of every configured service")
    .option("--config <key=value>", "a setting such as keep:address=...; repeatable", collect, [])
    .option("--config-commands <file>", "write the `pulumi config set` commands the program needs (values left to fill in) to this file instead of standard error")
    .option("--secrets-file <file>", "write the `pulumi config set --secret` commands with the secret values the service returned to this file (mode 0600); without it no secret value is written anywhere")
    .option("--concurrency <n>", "reads in flight at once", "8")
    .option("--format <format>", "typescript: a program declaring the objects with adopt: true; pulumi-import: the file `pulumi import --file` takes, for programs in any language through the keepstack plugin", "typescript")
    .option("--provider-urn <urn>", "pulumi-import: the URN of an explicit keepstack provider to read the objects through (a second cluster)")
    .option("--parent-urn <urn>", "pulumi-import: the URN of a component the imported resources become children of")
    .action(async (type: string | undefined, ids: string[], opts: { all?: boolean; config: string[]; configCommands?: string; secretsFile?: string; concurrency: string; format: string; providerUrn?: string; parentUrn?: string }) => {
      if (opts.format !== "typescript" && opts.format !== "pulumi-import") throw new Error(`--format takes typescript or pulumi-import, got "${opts.format}"`);
      if (opts.format !== "pulumi-import" && (opts.providerUrn || opts.parentUrn)) throw new Error("--provider-urn and --parent-urn go with --format pulumi-import");
      let objects: ImportedObject[];
      const leftOut: LeftOut[] = [];
      if (type === undefined) {
        if (!opts.all) throw new Error("give a type and IDs, a type and --all, or --all alone for every type");
        const concurrency = Number(opts.concurrency);
        if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`--concurrency takes a whole number >= 1, got "${opts.concurrency}"`);
        objects = await importAll({ lookup: lookupOf(opts.config), concurrency, progress: (m) => process.stderr.write(`${m}\n`), leftOut: (l) => leftOut.push(l) });
      } else {
        const spec = specOf(type);
        const ctx = contextOf(opts.config);
        if (opts.all) {
          if (!spec.list) throw new Error(`${type} cannot be listed; give the IDs to import`);
          if (spec.module === "keep") await requireNamespace(ctx);
          const listed = await spec.list(ctx);
          if (listed.length === 0 && ids.length === 0) {
            // Nothing to declare: say what was looked at, and print no program.
            process.stderr.write(`no ${shortTypeOf(tokenOf(spec))} objects ${scopeOf(ctx, spec)}: nothing to import\n`);
            return;
          }
          ids = [...ids, ...listed];
        }
        if (ids.length === 0) throw new Error("give the IDs to import, or --all");
        objects = await importObjects(ctx, spec, ids);
      }
      if (opts.format === "pulumi-import") {
        // Names, types and IDs only: the plugin reads each object when `pulumi import --file` runs.
        process.stdout.write(`${JSON.stringify(importFile(objects, { providerUrn: opts.providerUrn, parentUrn: opts.parentUrn }), null, 2)}\n`);
        const notes = inputsToAdd(objects);
        if (notes.length) process.stderr.write(`\n${notes.join("\n")}\n`);
        if (leftOut.length) process.stderr.write(`\n${leftOutSummary(leftOut)}`);
        return;
      }
      const { text, settings } = renderProgram(objects);
      process.stdout.write(text);
      const commands = configCommands(settings);
      if (commands && opts.configCommands) fs.writeFileSync(opts.configCommands, commands, { mode: 0o600 });
      else if (commands) process.stderr.write(`\n${commands}`);
      const returnedSecrets = settings.filter((s) => s.value !== undefined);
      if (opts.secretsFile) {
        fs.writeFileSync(opts.secretsFile, configCommands(returnedSecrets, { values: true }), { mode: 0o600 });
        fs.chmodSync(opts.secretsFile, 0o600);
      } else if (returnedSecrets.length) {
        process.stderr.write(
          `\nSecret values the service returned are not written anywhere: set ${returnedSecrets.map((s) => s.key).join(", ")} yourself, or run again with --secrets-file <file> for their commands.\n`,
        );
      }
      if (leftOut.length) process.stderr.write(`\n${leftOutSummary(leftOut)}`);
    });
  program
    .command("types")
    .description("list the resource types and whether --all can list them")
    .action(() => {
      for (const s of objectSpecs) console.log(`${shortTypeOf(tokenOf(s))}${s.notImportable ? "  (not importable)" : s.list ? "" : "  (import by ID only)"}`);
    });
}
