/**
 * The code `pulumi import` writes, as a user takes it into the program: copied from what the CLI
 * printed (or the file `--out` wrote), and completed with the credentials the package's import
 * command says a service never returns, given as references (`{ fromEnv: ... }`), as
 * docs/import.md says. A preview then plans adding those credentials and nothing else.
 */
import { z } from "zod";
import { takesSecretReference } from "../../provider/secret-ref";
import { shortTypeOf, tokenOf } from "../../provider/spec";
import { allSpecs } from "../../resources/all-specs";
import { CliStep, planOf, Project } from "../support/real-engine";
import type { ImportFile } from "./cluster";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = require("js-yaml") as { load(text: string): unknown; dump(value: unknown, options?: { lineWidth?: number; noRefs?: boolean }): string };

/** The environment variable the added references name. */
export const IMPORTED_CREDENTIAL = "IMPORTED_CREDENTIAL";

/** The code after the CLI's "Please copy the following code into your Pulumi application" (and its note on protection). */
export function writtenCode(stdout: string): string {
  const at = stdout.lastIndexOf("Please copy the following code into your Pulumi application");
  if (at < 0) throw new Error(`pulumi import printed no code:\n${stdout}`);
  const paragraphs = stdout.slice(at).split(/\n\s*\n/).slice(1);
  while (paragraphs.length && /^Please note that the imported resources are marked as protected/.test(paragraphs[0].trim())) paragraphs.shift();
  return paragraphs.join("\n\n");
}

/** Adds the resources of each piece of written YAML code to the project's Pulumi.yaml. */
export function mergeYamlResources(project: Project, codes: string[]): void {
  const file = yaml.load(project.read("Pulumi.yaml")) as { resources?: Record<string, unknown> };
  for (const code of codes) Object.assign((file.resources ??= {}), (yaml.load(code) as { resources: Record<string, unknown> }).resources);
  project.write("Pulumi.yaml", yaml.dump(file, { lineWidth: -1, noRefs: true }));
}

export type WrittenLanguage = "typescript" | "python" | "yaml";

/** Python's name of a property, as Pulumi's Python generator makes it (`secretAccessKey` → `secret_access_key`). */
const snake = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();

export interface Credentials {
  /** Resource name → the inputs added to it, and their values (a reference for a credential). */
  byName: Map<string, Record<string, unknown>>;
  /** The written code with every one added. */
  addTo(language: WrittenLanguage, code: string): string;
}

const REFERENCE = { fromEnv: IMPORTED_CREDENTIAL };

/** A value as the written code of a language spells it. */
function literal(language: "typescript" | "python", value: unknown): string {
  if (value === REFERENCE) return language === "typescript" ? `{ fromEnv: "${IMPORTED_CREDENTIAL}" }` : `keepstack.keep.SecretReferenceArgs(from_env="${IMPORTED_CREDENTIAL}")`;
  if (language === "python" && typeof value === "boolean") return value ? "True" : "False";
  return JSON.stringify(value);
}

/**
 * What the package's import command said the program must add (its standard error), by the file's
 * resource names, where the object was made with it (`made`, by short type): a credential as a
 * reference, as the command advises; any other input as the value it was made with.
 */
export function credentialsToAdd(cluster: { file: ImportFile; stderr: string }, made: Map<string, Record<string, unknown>>): Credentials {
  const byName = new Map<string, Record<string, unknown>>();
  for (const m of cluster.stderr.matchAll(/^(keepstack:\S+) "([^"]+)": the service never returns ([\w, ]+?): add/gm)) {
    const resource = cluster.file.resources.find((r) => r.type === m[1] && r.id === m[2]);
    if (!resource) throw new Error(`the import command named ${m[1]} "${m[2]}", which its file does not hold`);
    const type = shortTypeOf(m[1]);
    const spec = allSpecs.find((s) => shortTypeOf(tokenOf(s)) === type)!;
    const shape = spec.inputs.shape as Record<string, z.ZodType>;
    // What the object was made with: a credential as a reference, anything else as its value; nothing where it had none.
    const given = m[3].split(", ").filter((key) => made.get(type)?.[key] !== undefined);
    byName.set(resource.name, Object.fromEntries(given.map((key) => [key, takesSecretReference(shape[key]) ? REFERENCE : made.get(type)![key]])));
  }
  const addTo = (language: WrittenLanguage, code: string): string => {
    let out = code;
    for (const [name, added] of byName) {
      if (language === "yaml") {
        const file = yaml.load(out) as { resources: Record<string, { properties?: Record<string, unknown> }> };
        const resource = file.resources[name];
        if (!resource) throw new Error(`the written YAML declares no resource ${name}`);
        Object.assign((resource.properties ??= {}), added);
        out = yaml.dump(file, { lineWidth: -1, noRefs: true });
        continue;
      }
      // The resource's arguments: from its opening line to the line that closes them. What the CLI
      // wrote for an input it could not read (a placeholder, for a required one) gives way.
      const lines = out.split("\n");
      const opening = lines.findIndex((l) => (language === "typescript" ? l.endsWith(`("${name}", {`) : l.endsWith(`("${name}",`)) && l.includes("keepstack."));
      if (opening < 0) throw new Error(`the written ${language} code declares no resource ${name}:\n${out}`);
      let closing = opening + 1;
      while (closing < lines.length && /^\s{4}/.test(lines[closing])) closing++;
      const names = Object.keys(added).map((k) => (language === "typescript" ? k : snake(k)));
      const argument = new RegExp(`^ {4}(${names.join("|")})${language === "typescript" ? ":" : "="}`);
      const block = lines.slice(opening + 1, closing);
      const kept = block.filter((l) => !argument.test(l));
      const given = Object.entries(added).map(([k, v]) => (language === "typescript" ? `    ${k}: ${literal(language, v)},` : `    ${snake(k)}=${literal(language, v)},`));
      const body = [...given, ...kept];
      // Python closes the call on its last argument's line: it stays closed when that argument gives way.
      if (language === "python" && kept[kept.length - 1] !== block[block.length - 1]) body[body.length - 1] = body[body.length - 1].replace(/,$/, ")");
      out = [...lines.slice(0, opening + 1), ...body, ...lines.slice(closing)].join("\n");
    }
    return out;
  };
  return { byName, addTo };
}

/**
 * A preview of the completed program plans, for each resource given credentials, an update adding
 * exactly them, and nothing else.
 */
export async function expectOnlyCredentialsAdded(project: Project, credentials: Credentials): Promise<CliStep[]> {
  const plan = planOf(await project.pulumi(["preview", "--json"], { env: { [IMPORTED_CREDENTIAL]: "a-credential-value" } }));
  const expected = [...credentials.byName].map(([name, added]) => ({ op: "update", name, detailedDiff: Object.fromEntries(Object.keys(added).map((k) => [k, "add"])) }));
  const planned = plan.steps.map((s) => ({ op: s.op, name: s.name, detailedDiff: s.detailedDiff ?? {} }));
  expect(planned.sort((a, b) => a.name.localeCompare(b.name))).toEqual(expected.sort((a, b) => a.name.localeCompare(b.name)));
  return plan.steps;
}
