/**
 * Property values as the resource monitor's protocol carries them: secrets wrapped in the SDK's
 * signature object, unknowns as its sentinel string.
 */

export type Props = Record<string, unknown>;

export const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export function isSecret(value: unknown): value is { value: unknown } {
  return !!value && typeof value === "object" && (value as Props)[SECRET_SIG_KEY] === SECRET_SIG;
}

export function containsSecret(value: unknown): boolean {
  if (isSecret(value)) return true;
  if (Array.isArray(value)) return value.some(containsSecret);
  if (value && typeof value === "object") return Object.values(value).some(containsSecret);
  return false;
}

/** The plain value, as the engine sends it to a provider that does not accept secrets. */
export function stripSecrets(value: unknown): any {
  if (isSecret(value)) return stripSecrets(value.value);
  if (Array.isArray(value)) return value.map(stripSecrets);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stripSecrets(v)]));
  }
  return value;
}

export function wrapSecrets(props: Props, secretKeys: string[]): Props {
  const out: Props = { ...props };
  for (const key of secretKeys) if (key in out) out[key] = { [SECRET_SIG_KEY]: SECRET_SIG, value: out[key] };
  return out;
}

/** The top-level keys whose values hold a secret. */
export function secretKeysOf(props: Props): string[] {
  return Object.keys(props).filter((k) => containsSecret(props[k]));
}

export function withoutProvider(props: Props): Props {
  const { __provider: _p, ...rest } = props;
  return rest;
}

export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}
