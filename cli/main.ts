#!/usr/bin/env node
/**
 * `pulumi-keepstack import`: reads objects that already exist on a service and prints the TypeScript
 * that declares them with `adopt: true`, so a program can take them over (the Pulumi CLI's own
 * import cannot serve dynamic resources). Settings come from the environment (KEEP_ADDR, ...) and
 * `--config key=value`, as for the provider.
 */
import { Command } from "commander";
import { createContext, OperationContext } from "../provider/context";
import { isOperationSpec, ResourceSpec, shortTypeOf, tokenOf } from "../provider/spec";
import { allSpecs } from "../resources/registry";
import { ImportedObject, programText } from "./program-text";

/** Objects that exist on a service, as opposed to operations: those the command can import. */
const objectSpecs = allSpecs.filter((s): s is ResourceSpec => !isOperationSpec(s));

/** `keep:AclPolicy`, `keep.AclPolicy` or the full token. */
export function specOf(type: string): ResourceSpec {
  const short = shortTypeOf(type).replace(".", ":");
  const spec = objectSpecs.find((s) => shortTypeOf(tokenOf(s)) === short);
  if (!spec) {
    const known = objectSpecs.map((s) => shortTypeOf(tokenOf(s))).join(", ");
    throw new Error(`unknown resource type "${type}"; known types: ${known}`);
  }
  return spec;
}

export async function importObjects(ctx: OperationContext, spec: ResourceSpec, ids: string[]): Promise<ImportedObject[]> {
  const objects: ImportedObject[] = [];
  for (const id of ids) {
    const found = await spec.read(ctx, id);
    if (!found) throw new Error(`${tokenOf(spec)}: no object with ID "${id}" exists`);
    objects.push({ spec, id: found.id ?? id, inputs: { ...spec.fromId(id), ...found.inputs } });
  }
  return objects;
}

function contextOf(pairs: string[]): OperationContext {
  const config: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq < 1) throw new Error(`--config takes key=value (for example keep:address=https://keep.example:8200), got "${pair}"`);
    config[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return createContext((key) => config[key]);
}

const collect = (value: string, previous: string[]) => [...previous, value];

async function main(argv: string[]): Promise<void> {
  const program = new Command().name("pulumi-keepstack").description("Tools of the pulumi-keepstack package");
  program
    .command("import")
    .description("print TypeScript declaring existing objects with adopt: true")
    .argument("<type>", "resource type, e.g. keep:AclPolicy or workspaces:Workspace")
    .argument("[ids...]", "natural IDs of the objects (see the README's resource table)")
    .option("--all", "every object of that type in the configured scope")
    .option("--config <key=value>", "a setting such as keep:address=...; repeatable", collect, [])
    .action(async (type: string, ids: string[], opts: { all?: boolean; config: string[] }) => {
      const spec = specOf(type);
      const ctx = contextOf(opts.config);
      if (opts.all) {
        if (!spec.list) throw new Error(`${type} cannot be listed; give the IDs to import`);
        ids = [...ids, ...(await spec.list(ctx))];
      }
      if (ids.length === 0) throw new Error("give the IDs to import, or --all");
      process.stdout.write(programText(await importObjects(ctx, spec, ids)));
    });
  program
    .command("types")
    .description("list the resource types and whether --all can list them")
    .action(() => {
      for (const s of objectSpecs) console.log(`${shortTypeOf(tokenOf(s))}${s.list ? "" : "  (import by ID only)"}`);
    });
  await program.parseAsync(argv);
}

if (require.main === module) {
  main(process.argv).catch((e) => {
    console.error(`error: ${e instanceof Error ? e.message : e}`);
    process.exit(1);
  });
}
