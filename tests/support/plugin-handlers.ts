/**
 * The plugin door's handlers called in this process, with requests and answers built and read as
 * the protocol's messages (property bags as `google.protobuf.Struct`): the translation the plugin
 * does, without a process or a socket, for campaigns that call it thousands of times.
 */
import { PluginServer } from "../../provider/plugin/server";
import { sdkModules } from "../../provider/plugin/sdk";
import { pluginCatalog } from "../../resources/plugin-catalog";
import { pluginToken } from "./plugin-sdk";

type Props = Record<string, unknown>;

/** A value as the engine sends it: JSON, with no `undefined` anywhere (the engine leaves such keys out). */
function asSent(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : asSent(v)));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, asSent(v)]),
    );
  }
  return value;
}

export class InProcessDoor {
  private readonly sdk = sdkModules();
  private readonly handlers = new PluginServer(pluginCatalog(), this.sdk).service();

  private call(method: string, request: unknown): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    return new Promise((resolve, reject) => {
      this.handlers[method]({ request }, (error, value) => (error ? reject(Object.assign(new Error((error as { details?: string }).details ?? String(error)), { grpc: error })) : resolve(value)));
    });
  }

  private struct(props: Props) {
    return this.sdk.struct.Struct.fromJavaScript(asSent(props));
  }

  async configure(args: Props): Promise<void> {
    const req = new this.sdk.provider.ConfigureRequest();
    req.setArgs(this.struct(args));
    await this.call("configure", req);
  }

  async check(type: string, olds: Props, news: Props): Promise<{ inputs: Props; failures: { property: string; reason: string }[] }> {
    const req = new this.sdk.provider.CheckRequest();
    req.setUrn(`urn:pulumi:dev::door::${pluginToken(type)}::x`);
    req.setOlds(this.struct(olds));
    req.setNews(this.struct(news));
    const resp = await this.call("check", req);
    return { inputs: resp.getInputs()?.toJavaScript() ?? {}, failures: resp.getFailuresList().map((f: any) => ({ property: f.getProperty(), reason: f.getReason() })) }; // eslint-disable-line @typescript-eslint/no-explicit-any
  }

  async diff(type: string, id: string, olds: Props, news: Props): Promise<{ changes: number; diffs: string[] }> {
    const req = new this.sdk.provider.DiffRequest();
    req.setUrn(`urn:pulumi:dev::door::${pluginToken(type)}::x`);
    req.setId(id);
    req.setOlds(this.struct(olds));
    req.setOldInputs(this.struct(olds));
    req.setNews(this.struct(news));
    const resp = await this.call("diff", req);
    return { changes: resp.getChanges(), diffs: resp.getDiffsList() };
  }
}
