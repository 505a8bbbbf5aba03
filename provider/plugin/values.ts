/**
 * Property values as the engine sends them to a provider that accepts secrets: plain JSON in which a
 * secret is an object carrying the secret signature, and an unknown value (preview) the unknown
 * sentinel string. The machines take plain values, with unknowns as they are; the plugin remembers
 * which properties were secret and marks them again on the way back.
 */
import { toPlainJson } from "../object-machine";

export type Props = Record<string, unknown>;

/** The signature key and value that mark a secret (`pulumi.runtime` rpc's `specialSigKey`, `specialSecretSig`). */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

export function isSecretValue(value: unknown): value is { value: unknown } {
  return !!value && typeof value === "object" && (value as Props)[SIG_KEY] === SECRET_SIG;
}

export function secretValue(value: unknown): Props {
  return { [SIG_KEY]: SECRET_SIG, value };
}

/** The value without secret marks, and whether it held one anywhere. */
export function unmark(value: unknown): { plain: unknown; secret: boolean } {
  if (isSecretValue(value)) return { plain: unmark(value.value).plain, secret: true };
  if (Array.isArray(value)) {
    const items = value.map(unmark);
    return { plain: items.map((i) => i.plain), secret: items.some((i) => i.secret) };
  }
  if (value && typeof value === "object") {
    let secret = false;
    const plain: Props = {};
    for (const [k, v] of Object.entries(value)) {
      const inner = unmark(v);
      plain[k] = inner.plain;
      secret ||= inner.secret;
    }
    return { plain, secret };
  }
  return { plain: value, secret: false };
}

/** Properties without secret marks, and the names of those that held one (a secret anywhere inside makes the property secret). */
export function unmarkProps(props: Props | undefined): { plain: Props; secrets: Set<string> } {
  const plain: Props = {};
  const secrets = new Set<string>();
  for (const [key, value] of Object.entries(props ?? {})) {
    const inner = unmark(value);
    plain[key] = inner.plain;
    if (inner.secret) secrets.add(key);
  }
  return { plain, secrets };
}

/** Plain JSON properties with the named ones marked secret. */
export function markProps(props: Props, secrets: Iterable<string>): Props {
  const out = toPlainJson(props) ?? {};
  for (const key of new Set(secrets)) if (out[key] !== undefined) out[key] = secretValue(out[key]);
  return out;
}
