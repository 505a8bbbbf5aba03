/**
 * Secret name templates of sync destinations: `{{ .Field | pipe ... }}` placeholders over the
 * values of one synced secret. A small, strict subset of the service's template language: the
 * fields and pipes below, nothing else, so a mistake is refused when the destination is written.
 */
import { badRequest } from "../replies";

/** Values a placeholder can name. */
export interface TemplateValues {
  MountAccessor: string;
  /** Path of the secret inside its mount. */
  SecretPath: string;
  /** Last segment of the path. */
  SecretBaseName: string;
  /** Key inside the secret (granularity `secret-key` only). */
  SecretKey?: string;
  /** Namespace path of the mount, "" at the root. */
  NamespacePath: string;
}

export const TEMPLATE_FIELDS = ["MountAccessor", "SecretPath", "SecretBaseName", "SecretKey", "NamespacePath"] as const;
const PIPES = ["uppercase", "lowercase", "replace"] as const;

const PLACEHOLDER = /\{\{\s*(.*?)\s*\}\}/g;

interface Placeholder {
  field: string;
  pipes: { name: string; args: string[] }[];
}

function parsePlaceholder(text: string): Placeholder {
  const [head, ...rest] = text.split("|").map((part) => part.trim());
  const field = /^\.(\w+)$/.exec(head)?.[1];
  if (!field || !(TEMPLATE_FIELDS as readonly string[]).includes(field)) {
    throw badRequest(`invalid 'secret_name_template': "{{ ${text} }}" names no field; use ${TEMPLATE_FIELDS.map((f) => `.${f}`).join(", ")}`);
  }
  const pipes = rest.map((part) => {
    const name = part.split(/\s+/)[0];
    const args = [...part.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]);
    if (!(PIPES as readonly string[]).includes(name)) throw badRequest(`invalid 'secret_name_template': unknown function "${name}"; use ${PIPES.join(", ")}`);
    if (name === "replace" && args.length !== 2) throw badRequest(`invalid 'secret_name_template': replace takes two quoted strings`);
    return { name, args };
  });
  return { field, pipes };
}

/** Checks a template; returns the fields it names. Throws a 400 naming the parameter. */
export function checkTemplate(template: string): string[] {
  const fields: string[] = [];
  for (const match of template.matchAll(PLACEHOLDER)) fields.push(parsePlaceholder(match[1]).field);
  const outside = template.replace(PLACEHOLDER, "");
  if (outside.includes("{{") || outside.includes("}}")) throw badRequest("invalid 'secret_name_template': unbalanced braces");
  return fields;
}

/** The name a template gives one secret (or one key of it). */
export function renderTemplate(template: string, values: TemplateValues): string {
  return template.replace(PLACEHOLDER, (_all, inner: string) => {
    const { field, pipes } = parsePlaceholder(inner);
    let value = String(values[field as keyof TemplateValues] ?? "");
    for (const pipe of pipes) {
      if (pipe.name === "uppercase") value = value.toUpperCase();
      else if (pipe.name === "lowercase") value = value.toLowerCase();
      else value = value.split(pipe.args[0]).join(pipe.args[1]);
    }
    return value;
  });
}
