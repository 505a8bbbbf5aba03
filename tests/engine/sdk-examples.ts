/**
 * The resources' examples where users read them: in the doc comments of the SDK that `pulumi package
 * add` generated for their language (the schema's examples, scripts/schema-examples.ts, filtered by
 * the SDK's generator), or in the schema for YAML, which has no SDK. The plugin tests of each language
 * compile or run what these return.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pluginTokenOf } from "../../provider/spec";
import { registeredResources } from "../../resources/all-specs";
import { pluginInputs } from "../../scripts/schema-examples";
import { repoRoot } from "../support/real-engine";

export type SdkLanguage = "typescript" | "python" | "go";

export interface SdkExample {
  /** Where it was read: the SDK file, or the schema's resource token. */
  source: string;
  code: string;
}

type Schema = { resources: Record<string, { description?: string; inputProperties?: Record<string, { secret?: boolean }> }> };
let schema: Schema | undefined;
/** The schema the package ships, as the plugin serves it (the build's, read once). */
const packageSchema = () => (schema ??= JSON.parse(fs.readFileSync(path.join(repoRoot, "schema.json"), "utf8")) as Schema);

/** A resource's inputs in the schema, by name. */
export const schemaInputs = (token: string) => packageSchema().resources[token]?.inputProperties ?? {};

/** The resources whose description holds examples. */
export function tokensWithExamples(): string[] {
  return Object.entries(packageSchema().resources)
    .filter(([, r]) => r.description?.includes("{{% examples %}}"))
    .map(([token]) => token);
}

/** Each resource's example block of `language` in the schema, by token. */
export function schemaExamples(language: SdkLanguage | "yaml"): Map<string, string> {
  const found = new Map<string, string>();
  for (const [token, r] of Object.entries(packageSchema().resources)) {
    const block = new RegExp("```" + language + "\\n([\\s\\S]*?)\\n```").exec(r.description ?? "");
    if (block) found.set(token, `${block[1]}\n`);
  }
  return found;
}

/** How each SDK's files hold a doc comment: their extension, and a comment line's text without its markers. */
const COMMENTS: Record<SdkLanguage, { extension: string; line(text: string, indent: string): string }> = {
  // ` * text` in a JSDoc block.
  typescript: { extension: ".ts", line: (text) => text.replace(/^\s*\* ?/, "") },
  // A docstring: lines indented as the fence is, read as Python reads the string (the generator escapes `\` and `"""`).
  python: { extension: ".py", line: (text, indent) => (text.startsWith(indent) ? text.slice(indent.length) : text.trimStart()).replace(/\\([\\"])/g, "$1") },
  // `// text`; the generator reformats a Go block as a doc comment (code lines indented by a tab), which Go reads alike.
  go: { extension: ".go", line: (text) => text.replace(/^\s*\/\/ ?/, "") },
};

function filesUnder(dir: string, extension: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    // Not what an install made of the sources: packages, compiled output, pip's build copy.
    if (entry.isDirectory()) return ["node_modules", "bin", "build"].includes(entry.name) ? [] : filesUnder(file, extension);
    return entry.name.endsWith(extension) ? [file] : [];
  });
}

/** The example blocks of `language` in the doc comments of the SDK at `sdkDir`, one per file (Python repeats a docstring on each overload). */
export function sdkExamples(sdkDir: string, language: SdkLanguage): SdkExample[] {
  const { extension, line } = COMMENTS[language];
  const examples: SdkExample[] = [];
  for (const file of filesUnder(sdkDir, extension).sort()) {
    const lines = fs.readFileSync(file, "utf8").split("\n");
    const open = lines.findIndex((l) => l.trimEnd().endsWith("```" + language));
    if (open < 0) continue;
    const indent = /^\s*/.exec(lines[open])![0];
    const close = lines.findIndex((l, i) => i > open && /```\s*$/.test(l));
    if (close < 0) throw new Error(`${file}: a ${language} example that does not end`);
    examples.push({ source: path.relative(sdkDir, file), code: `${lines.slice(open + 1, close).map((l) => line(l, indent)).join("\n")}\n` });
  }
  return examples;
}

/**
 * Each input of an example as its type reads it, which is how the plugin's check answers it: an
 * `appId` given as "12345" is the number 12345.
 */
export function asTheTypeReadsIt(token: string, inputs: Record<string, unknown>): Record<string, unknown> {
  const spec = registeredResources.find((r) => pluginTokenOf(r.spec) === token)?.spec;
  if (!spec) throw new Error(`no registered type has the token ${token}`);
  const shape = spec.inputs.shape as unknown as Record<string, { safeParse(value: unknown): { success: boolean; data?: unknown } }>;
  return Object.fromEntries(
    Object.entries(inputs).map(([key, value]) => {
      const read = shape[key]?.safeParse(value);
      return [key, read?.success ? read.data : value];
    }),
  );
}

/** What each example declares, by the plugin's token: its spec's first example as the plugin takes it, from which the build wrote it in every language. */
export function exampleInputsByToken(): Record<string, Record<string, unknown>> {
  return Object.fromEntries(registeredResources.filter((r) => r.spec.example).map((r) => [pluginTokenOf(r.spec), pluginInputs(r.spec.example!.inputs(0))]));
}
