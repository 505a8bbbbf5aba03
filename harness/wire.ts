/**
 * Property values as the resource monitor's protocol carries them: secrets wrapped in the SDK's
 * signature object, unknowns as its sentinel string. The marks are the plugin door's
 * (provider/plugin/values.ts), the sentinel the machines' (provider/unknowns.ts); what is here is the
 * harness's use of them.
 */
import { secretValue, unmark, unmarkProps } from "../provider/plugin/values";

export { containsUnknown, UNKNOWN } from "../provider/unknowns";

export type Props = Record<string, unknown>;

/** The plain value, as the engine sends it to a provider that does not accept secrets. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const stripSecrets = (value: unknown): any => unmark(value).plain;

/** The top-level keys whose values hold a secret. */
export const secretKeysOf = (props: Props): string[] => [...unmarkProps(props).secrets];

/** The properties with the named ones (those present) marked secret. */
export function wrapSecrets(props: Props, secretKeys: string[]): Props {
  const out: Props = { ...props };
  for (const key of secretKeys) if (key in out) out[key] = secretValue(out[key]);
  return out;
}

/** The properties without the dynamic provider's text (`__provider`). */
export function withoutProvider(props: Props): Props {
  const { __provider: _p, ...rest } = props;
  return rest;
}
