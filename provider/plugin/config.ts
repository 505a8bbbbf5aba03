/**
 * The provider plugin's configuration: today's settings of the three services, one flat key each
 * under the package (`keepstack:keepAddress` for `keep:address`), with the same environment
 * variables and defaults. `CheckConfig` holds each value to its type and rule, `Configure` turns the
 * values into the lookup the machines' context reads (`keep:address` → `keepAddress`).
 *
 * Keys that are not settings are the user's own values: a secret reference in the plugin door names
 * one (`{ fromConfig: "keepstack:dbPassword" }`), as the engine gives a provider only the keys of its
 * own package. A key that starts like a setting (`keepAdress`) but is none is refused as a misspelling.
 */
import { ConfigLookup, isSameCluster, PLUGIN_PACKAGE, pluginSettingName, resolveServiceConfig, serviceConfigProblems, ServiceModule, Setting, SETTINGS } from "../config";
import type { CheckFailure } from "../validate";
import { isUnknown } from "../unknowns";
import type { Props } from "./values";

const SERVICES = Object.keys(SETTINGS) as ServiceModule[];

export interface PluginSetting {
  /** `keepAddress` */
  name: string;
  service: ServiceModule;
  setting: Setting;
}

/** Every setting of the plugin, in the services' order. */
export const PLUGIN_SETTINGS: readonly PluginSetting[] = SERVICES.flatMap((service) =>
  SETTINGS[service].map((setting) => ({ name: pluginSettingName(service, setting.key), service, setting })),
);

const byName = new Map(PLUGIN_SETTINGS.map((s) => [s.name, s]));

/** Keys the engine adds to a provider's inputs itself. */
const ENGINE_KEYS = new Set(["version", "pluginDownloadURL"]);

/** A key shaped like a setting's name: a service's name, then a capital. */
const SETTING_SHAPED = new RegExp(`^(?:${SERVICES.join("|")})[A-Z]`);

/** The value as text, as the stack configuration holds it; undefined when it is not of the setting's type. */
function textOf(setting: Setting, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  // Generated SDKs send a non-string setting as JSON text; stack configuration sends text too.
  if (typeof value === "string") return value;
  if (setting.type === "boolean" && typeof value === "boolean") return String(value);
  if ((setting.type === "integer" || setting.type === "number") && typeof value === "number") return String(value);
  return undefined;
}

function typeProblem(setting: Setting, text: string): string | undefined {
  switch (setting.type) {
    case "boolean":
      return /^(true|false)$/i.test(text) ? undefined : `must be true or false, got "${text}"`;
    case "integer":
      return /^\d+$/.test(text.trim()) ? undefined : `must be a whole number (0 or more), got "${text}"`;
    case "number":
      return text.trim() !== "" && Number.isFinite(Number(text)) && Number(text) >= 0 ? undefined : `must be a number (0 or more), got "${text}"`;
    default:
      return undefined;
  }
}

/** Edit distance, for naming the setting a misspelt key meant. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

function nearestSetting(key: string): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const { name } of PLUGIN_SETTINGS) {
    const d = distance(key, name);
    if (!best || d < best.d) best = { name, d };
  }
  return best && best.d <= 3 ? best.name : undefined;
}

/** The settings' values as text (known values only), keyed by the plugin's names; the user's own keys as they are. */
export function configTexts(values: Props): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    if (isUnknown(value) || ENGINE_KEYS.has(key)) continue;
    const setting = byName.get(key)?.setting;
    const text = setting ? textOf(setting, value) : typeof value === "string" ? value : value === undefined || value === null ? undefined : JSON.stringify(value);
    if (text !== undefined) out[key] = text;
  }
  return out;
}

/** What the plugin's settings say, as the machines read them: `keep:address` is `keepAddress`, `keepstack:x` the user's key `x`. */
export function pluginLookup(texts: Record<string, string>): ConfigLookup {
  return (key) => {
    const colon = key.indexOf(":");
    if (colon < 0) return undefined;
    const namespace = key.slice(0, colon);
    const name = key.slice(colon + 1);
    if (namespace === PLUGIN_PACKAGE) return texts[name];
    if (!SERVICES.includes(namespace as ServiceModule)) return undefined;
    return texts[pluginSettingName(namespace as ServiceModule, name)];
  };
}

/**
 * The problems of a configuration, each a plain sentence naming its key (`keepstack:keepMaxRetries`)
 * and the rule: a value of the wrong type, a misspelt setting, a value the service's settings refuse
 * (an address that is no URL). A failure names no property: the engine would print the value it finds
 * under that name, and a default provider's keys are not its inputs' names. A setting nobody set is
 * no problem here, whatever the service: a program that uses the service has each of its resources'
 * check ask for it, and an SDK's defaults must not fail a service the program does not use.
 */
export function checkPluginConfig(values: Props, env: NodeJS.ProcessEnv = process.env): CheckFailure[] {
  const failures: CheckFailure[] = [];
  const keyOf = (name: string) => `${PLUGIN_PACKAGE}:${name}`;
  const refuse = (key: string, rule: string) => failures.push({ property: "", reason: `${keyOf(key)} ${rule}` });
  const refused = new Set<string>();
  for (const [key, value] of Object.entries(values)) {
    if (ENGINE_KEYS.has(key) || key.startsWith("__") || isUnknown(value)) continue;
    const known = byName.get(key);
    if (!known) {
      if (SETTING_SHAPED.test(key)) {
        const meant = nearestSetting(key);
        refuse(key, `is not a setting of ${PLUGIN_PACKAGE}${meant ? `: did you mean ${keyOf(meant)}?` : ""} (the settings are listed in the package schema's config)`);
      }
      continue;
    }
    if (value === undefined || value === null) continue;
    const text = textOf(known.setting, value);
    const problem =
      text === undefined
        ? `must be ${known.setting.type === "integer" ? "a whole number" : (known.setting.type ?? "a string")}, got ${Array.isArray(value) ? "a list" : typeof value}`
        : typeProblem(known.setting, text);
    if (problem) {
      refuse(key, problem);
      refused.add(key);
    }
  }
  // Each service is read as the machines will read it, for what else is wrong (an address that is no
  // URL beside a retry count that is no number): the values already named are left out of that read.
  const texts = configTexts(values);
  for (const key of refused) delete texts[key];
  const lookup = pluginLookup(texts);
  for (const service of SERVICES) {
    for (const problem of serviceConfigProblems(service, lookup, env, undefined, "plugin")) if (!problem.missing) failures.push({ property: "", reason: problem.message });
  }
  return failures;
}

/** The settings whose values differ between two configurations (the user's own keys included). */
export function changedSettings(olds: Props, news: Props): string[] {
  const before = configTexts(olds);
  const after = configTexts(news);
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => before[k] !== after[k]).sort();
}

/**
 * The address settings whose change moves the provider to another cluster: the old address names
 * another cluster than the new one, and the new settings do not name it among the cluster's
 * previous addresses. The engine replaces such a provider's resources (ARCHITECTURE.md, "One owner").
 */
export function movedAddresses(olds: Props, news: Props, env: NodeJS.ProcessEnv = process.env): string[] {
  const before = pluginLookup(configTexts(olds));
  const after = pluginLookup(configTexts(news));
  // Settings that cannot be read are CheckConfig's to name: no move is said of them.
  const read = (service: ServiceModule, lookup: ConfigLookup) => {
    try {
      return resolveServiceConfig(service, lookup, env, undefined, "plugin");
    } catch {
      return undefined;
    }
  };
  return SERVICES.filter((service) => {
    const was = read(service, before);
    const now = read(service, after);
    return was && now && !isSameCluster(was.address, now);
  }).map((service) => pluginSettingName(service, "address"));
}

/** Whether a key of the plugin's configuration holds a credential. */
export function isSecretSetting(name: string): boolean {
  return byName.get(name)?.setting.secret === true;
}
