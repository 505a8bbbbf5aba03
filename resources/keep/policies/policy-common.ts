/** What the three policy kinds share: the name rule, the policy text and how the service stores it. */
import { z } from "zod";
import { pathSegment } from "../../../provider/keep-object";

/** Policy name: the service stores names in lower case, so a name with capitals would never match. */
export const policyName = pathSegment("policy name")
  .refine((s) => s === s.toLowerCase(), "must be lower case (the service lower-cases policy names)")
  .refine((s) => s !== "root", "must not be `root`: the service's root policy cannot be written");

/** Policy document text (may be given base64-encoded, as the service accepts). */
export const policyText = z.string().refine((s) => s.trim().length > 0, "must not be empty");

export const enforcementLevel = z.enum(["advisory", "soft-mandatory", "hard-mandatory"], {
  error: "must be one of advisory, soft-mandatory, hard-mandatory",
});

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/**
 * The text the service stores: it decodes the policy whenever it is valid base64 (line breaks
 * ignored) and the result is UTF-8 text, whatever its length (`YWJj` is stored as `abc`).
 */
export function storedPolicyText(text: string): string {
  const compact = text.replace(/[\r\n]/g, "");
  if (compact === "" || !STRICT_BASE64.test(compact)) return text;
  try {
    const decoded = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(compact, "base64"));
    return CONTROL_CHARACTERS.test(decoded) ? text : decoded;
  } catch {
    return text;
  }
}

/** Trailing whitespace and a final newline are not a change. */
export function normalizePolicyText(text: string): string {
  return storedPolicyText(text).replace(/[ \t]+$/gm, "").replace(/\s+$/, "");
}
