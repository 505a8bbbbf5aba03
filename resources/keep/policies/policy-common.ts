/** What the three policy kinds share: the name rule, the policy text, the ID, the routes. */
import { z } from "zod";
import { OperationContext } from "../../../provider/context";
import { resourceSpec } from "../../../provider/spec";
import { keepId, pathSegment, splitKeepId } from "../namespace";

export type PolicyKind = "acl" | "rgp" | "egp";

/** Policy name: the service stores names in lower case, so a name with capitals would never match. */
export const policyName = pathSegment("policy name").refine(
  (s) => s === s.toLowerCase(),
  "must be lower case (the service lower-cases policy names)",
);

/** Policy document text (may be given base64-encoded, as the service accepts). */
export const policyText = z.string().refine((s) => s.trim().length > 0, "must not be empty");

export const enforcementLevel = z.enum(["advisory", "soft-mandatory", "hard-mandatory"], {
  error: "must be one of advisory, soft-mandatory, hard-mandatory",
});

const BASE64 = /^[A-Za-z0-9+/\r\n]+={0,2}$/;

/** The service decodes base64 policy text; compare what it stores. */
export function decodedPolicyText(text: string): string {
  const compact = text.trim();
  if (compact.length >= 8 && BASE64.test(compact)) {
    const decoded = Buffer.from(compact, "base64");
    const asText = decoded.toString("utf8");
    if (Buffer.from(asText, "utf8").equals(decoded) && !asText.includes("\uFFFD")) return asText;
  }
  return text;
}

/** Trailing whitespace and a final newline are not a change. */
export function normalizePolicyText(text: string): string {
  return decodedPolicyText(text).replace(/[ \t]+$/gm, "").replace(/\s+$/, "");
}

export function policyPath(kind: PolicyKind, name: string): string {
  return `sys/policies/${kind}/${encodeURIComponent(name)}`;
}

export function policyId(inputs: { name: string; namespace?: string }): string {
  return keepId(inputs.namespace, inputs.name);
}

export function policyFromId(id: string): { name: string; namespace?: string } {
  const { namespace, id: name } = splitKeepId(id);
  return namespace ? { name, namespace } : { name };
}

export async function readPolicy<T>(ctx: OperationContext, kind: PolicyKind, id: string): Promise<T | undefined> {
  const { namespace, id: name } = splitKeepId(id);
  return ctx.keep().read<T>(policyPath(kind, name), { namespace });
}

export async function writePolicy(ctx: OperationContext, kind: PolicyKind, id: string, body: Record<string, unknown>): Promise<void> {
  const { namespace, id: name } = splitKeepId(id);
  await ctx.keep().write(policyPath(kind, name), body, { namespace });
}

export async function deletePolicy(ctx: OperationContext, kind: PolicyKind, id: string): Promise<void> {
  const { namespace, id: name } = splitKeepId(id);
  await ctx.keep().delete(policyPath(kind, name), { namespace });
}

/** Built-in ACL policies every namespace has; they are not the program's to manage. */
const BUILT_IN = new Set(["root", "default"]);

export async function listPolicies(ctx: OperationContext, kind: PolicyKind): Promise<string[]> {
  const names = await ctx.keep().list(`sys/policies/${kind}`);
  return names.filter((name) => kind !== "acl" || !BUILT_IN.has(name));
}

type PolicyInputs = z.ZodObject<{ name: typeof policyName; policy: typeof policyText; namespace: z.ZodType<string | undefined> } & z.ZodRawShape>;

/**
 * The spec of one policy kind: all three write with POST, read with GET, delete with DELETE and list
 * under `sys/policies/<kind>`; they differ in their fields.
 */
export function policySpec<S extends PolicyInputs>(options: {
  kind: PolicyKind;
  type: string;
  inputs: S;
  /** The request body of a write. */
  bodyOf(args: z.output<S>): Record<string, unknown>;
  /** The inputs a read answer declares. */
  inputsOf(answer: Record<string, unknown>): Partial<z.output<S>>;
  normalize?: { [K in keyof z.output<S>]?: (value: z.output<S>[K]) => unknown };
}) {
  const { kind } = options;
  return resourceSpec({
    module: "keep",
    type: options.type,
    inputs: options.inputs,
    computed: z.object({}),
    replaceOnChanges: ["name", "namespace"],
    normalize: { policy: normalizePolicyText, ...options.normalize } as never,
    naturalId: (args) => policyId(args as { name: string; namespace?: string }),
    fromId: (id) => policyFromId(id) as unknown as Partial<z.output<S>>,
    async create(ctx, args) {
      const id = policyId(args as { name: string; namespace?: string });
      await writePolicy(ctx, kind, id, options.bodyOf(args));
      return { id, computed: {} };
    },
    async read(ctx, id) {
      const found = await readPolicy<Record<string, unknown>>(ctx, kind, id);
      return found && { inputs: options.inputsOf(found), computed: {} };
    },
    async update(ctx, id, args) {
      await writePolicy(ctx, kind, id, options.bodyOf(args));
      return {};
    },
    delete: (ctx, id) => deletePolicy(ctx, kind, id),
    list: (ctx) => listPolicies(ctx, kind),
  });
}
