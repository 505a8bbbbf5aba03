/** What the sync resources share: destination types, name-template rules, waits on the service. */
import { z } from "zod";
import type { KeepClient } from "../../../provider/keep-client";
import { retryPolicyOf } from "../../../provider/http";
import { waitFor } from "../../../provider/wait";
import { isUnknown } from "../../../provider/unknowns";

/** The destination types of the service, as its API names them. */
export const DESTINATION_TYPES = ["cloudA-sm", "cloudB-kv", "cloudC-sm", "repohost", "webhost-project"] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

export const GRANULARITIES = ["secret-path", "secret-key"] as const;

/** `granularity`, defaulting as the spec's table gives for the type. */
export const granularityInput = (fallback: (typeof GRANULARITIES)[number]) =>
  z.enum(GRANULARITIES, { error: `must be secret-path (one external secret per secret) or secret-key (one per key)` }).default(fallback);

const TEMPLATE_FIELDS = ["MountAccessor", "SecretPath", "SecretBaseName", "SecretKey", "NamespacePath"];
const TEMPLATE_PIPES = ["uppercase", "lowercase", "replace"];

/** The fields a secret name template names, or the reason it is not one the service accepts. */
export function templateFields(template: string): { fields: string[] } | { error: string } {
  const fields: string[] = [];
  for (const match of template.matchAll(/\{\{\s*(.*?)\s*\}\}/g)) {
    const [head, ...pipes] = match[1].split("|").map((p) => p.trim());
    const field = /^\.(\w+)$/.exec(head)?.[1];
    if (!field || !TEMPLATE_FIELDS.includes(field)) return { error: `"{{ ${match[1]} }}" names no field; use ${TEMPLATE_FIELDS.map((f) => `.${f}`).join(", ")}` };
    const unknown = pipes.map((p) => p.split(/\s+/)[0]).find((p) => !TEMPLATE_PIPES.includes(p));
    if (unknown !== undefined) return { error: `unknown function "${unknown}"; use ${TEMPLATE_PIPES.join(", ")}` };
    fields.push(field);
  }
  const outside = template.replace(/\{\{\s*(.*?)\s*\}\}/g, "");
  if (outside.includes("{{") || outside.includes("}}")) return { error: "unbalanced braces" };
  return { fields };
}

/** `secretNameTemplate`: placeholders `{{ .SecretPath }}`, `{{ .SecretKey | uppercase }}`, ... */
export const secretNameTemplateInput = z
  .string()
  .superRefine((t, ctx) => {
    const checked = isUnknown(t) ? { fields: [] } : templateFields(t);
    if ("error" in checked) ctx.addIssue({ code: "custom", message: `is not a template the service accepts: ${checked.error}` });
  })
  .optional();

/** `customTags`: tags added to each external secret, besides the built-in ones (prefix `keep:`). */
export const customTagsInput = z
  .record(z.string(), z.string())
  .refine((tags) => !Object.keys(tags).some((k) => k.startsWith("keep:")), "must not use the prefix keep:, kept for the built-in tags")
  .optional();

/** Polls a status read until `done`, with the client's backoff. */
export function pollStatus<T>(client: KeepClient, what: string, probe: () => Promise<T>, done: (state: T) => boolean, show: (state: T) => string, timeoutMs = 300_000): Promise<T> {
  return waitFor({ probe, done, describe: what, show, timeoutMs, policy: retryPolicyOf(client.config), maxIntervalMs: 2_000 });
}
