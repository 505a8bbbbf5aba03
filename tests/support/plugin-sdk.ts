/**
 * What an SDK generated from the plugin's schema does in a TypeScript program (`pulumi package add`
 * in any language does the same): a resource is a `pulumi.CustomResource` of the plugin's token,
 * every input and output property declared, secret inputs wrapped as secrets, secret outputs named
 * in `additionalSecretOutputs`; a provider is a `pulumi.ProviderResource` of the package; a function
 * is an invoke of its token. Tests declare the plugin door's resources through these.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import type { Emulator } from "keepstack-emulator";
import { pluginSettingName, type ServiceModule } from "../../provider/config";
import { generatedResource } from "./declared-program";

interface PropertySpec {
  secret?: boolean;
}
interface ResourceSpec {
  inputProperties: Record<string, PropertySpec>;
  properties: Record<string, PropertySpec>;
}
export interface PluginSchema {
  name: string;
  version: string;
  resources: Record<string, ResourceSpec>;
  functions: Record<string, unknown>;
  types: Record<string, unknown>;
  config: { variables: Record<string, PropertySpec & { type: string }> };
  provider: { inputProperties: Record<string, PropertySpec> };
  [key: string]: unknown;
}

let loaded: PluginSchema | undefined;

/** The schema the build wrote (`schema.json` at the package's root). */
export function pluginSchema(): PluginSchema {
  loaded ??= JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "schema.json"), "utf8")) as PluginSchema;
  return loaded;
}

/** The plugin's token of a short type: `keepstack:keep:AclPolicy` for `keep:AclPolicy`. */
export const pluginToken = (type: string): string => `keepstack:${type}`;

export type PluginResource = pulumi.CustomResource & Record<string, pulumi.Output<any>>; // eslint-disable-line @typescript-eslint/no-explicit-any

class GeneratedProvider extends pulumi.ProviderResource {
  constructor(name: string, props: Record<string, unknown>, opts: pulumi.ResourceOptions) {
    super("keepstack", name, props, opts);
  }
}

/**
 * A resource of the plugin, as a generated SDK declares it. Keys the schema does not have go on as
 * given, so a check that names them can be tested (a generated SDK would not compile them).
 */
export function pluginResource(type: string, name: string, args: Record<string, unknown>, opts: pulumi.CustomResourceOptions = {}): PluginResource {
  return generatedResource(pluginToken(type), name, args, opts) as PluginResource;
}

/** An explicit provider of the plugin (`pulumi:providers:keepstack`), as a generated SDK declares it. */
export function pluginProvider(name: string, args: Record<string, unknown>, opts: pulumi.ResourceOptions = {}): pulumi.ProviderResource {
  const spec = pluginSchema().provider.inputProperties;
  const props: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) props[key] = value !== undefined && spec[key]?.secret ? pulumi.secret(value) : value;
  return new GeneratedProvider(name, props, opts);
}

/** A function of the plugin (`keep:transformEncode`), invoked as a generated SDK invokes it. */
export function pluginInvoke(name: string, args: Record<string, unknown>, opts: pulumi.InvokeOptions = {}): Promise<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return pulumi.runtime.invoke(pluginToken(name), args, opts);
}

/** The plugin's settings for the embedded emulator's three services, as a stack's config holds them. */
export function pluginConfigOf(emu: Emulator): Record<string, string> {
  return {
    "keepstack:keepAddress": emu.keep.url,
    "keepstack:keepToken": emu.keep.rootToken,
    "keepstack:workspacesAddress": emu.workspaces.url,
    "keepstack:workspacesToken": emu.workspaces.tokens.user,
    "keepstack:workspacesOrganization": emu.workspaces.organization,
    "keepstack:meshAddress": emu.mesh.url,
    "keepstack:meshToken": emu.mesh.rootToken,
  };
}

/** The plugin's credentials: secret config. */
/** Stack settings as a door reads them: the dynamic door's `keep:address`, or the plugin's `keepstack:keepAddress`. */
export function settingsOfDoor(door: "dynamic" | "plugin", values: Record<string, string>): Record<string, string> {
  if (door === "dynamic") return values;
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => {
      const [service, setting] = key.split(":");
      return [`keepstack:${pluginSettingName(service as ServiceModule, setting)}`, value];
    }),
  );
}

export const PLUGIN_SECRET_CONFIG = ["keepstack:keepToken", "keepstack:workspacesToken", "keepstack:meshToken"];

/** The same settings in the variables the package's commands read, as the emulator exports them. */
export function serviceEnv(emu: Emulator): Record<string, string> {
  return {
    KEEP_ADDR: emu.keep.url,
    KEEP_TOKEN: emu.keep.rootToken,
    WORKSPACES_ADDR: emu.workspaces.url,
    WORKSPACES_TOKEN: emu.workspaces.tokens.user,
    WORKSPACES_ORGANIZATION: emu.workspaces.organization,
    MESH_HTTP_ADDR: emu.mesh.url,
    MESH_HTTP_TOKEN: emu.mesh.rootToken,
  };
}
