/** The import command and sync: every type the service lists is listed, and the printed program adopts without changes. */
import { keep } from "pulumi-keepstack";
import { importObjects, specOf } from "../../../cli/import";
import { programText } from "../../../cli/program-text";
import { createContext } from "../../../provider/context";
import { summarize } from "../../../harness";
import { KeepStack, startKeepStack } from "../../support/keep-stack";

describe("import of sync objects", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack();
    // Objects made by another program.
    await stack.engine.up(() => {
      const secret = new keep.kv.Secret("s", { path: "team/app/db", data: { password: "p" } });
      const top = new keep.kv.Secret("t", { path: "top", data: { a: "b" } });
      const a = new keep.sync.CloudASmDestination("a", { name: "aws", region: "eu-west-1", customTags: { team: "x" } });
      new keep.sync.WebHostProjectDestination("w", { name: "site", accessToken: "t", projectId: "prj", deploymentEnvironments: ["production"] });
      new keep.sync.Association("as", { destinationType: a.destinationType, destinationName: a.name, mount: secret.mount, secretName: secret.path });
      new keep.sync.Association("at", { destinationType: a.destinationType, destinationName: a.name, mount: top.mount, secretName: top.path });
    });
    stack.engine.state.clear();
  });
  afterAll(() => stack.close());

  const ctx = () => createContext((k) => ({ "keep:address": stack.keep.url, "keep:token": stack.keep.rootToken })[k], {});

  test("--all lists destinations per type, associations and key-value secrets (directories walked)", async () => {
    expect(await specOf("keep:SyncCloudASmDestination").list!(ctx())).toEqual(["cloudA-sm/aws"]);
    expect(await specOf("keep:SyncWebHostProjectDestination").list!(ctx())).toEqual(["webhost-project/site"]);
    expect(await specOf("keep:SyncRepoHostDestination").list!(ctx())).toEqual([]);
    expect((await specOf("keep:SyncAssociation").list!(ctx())).sort()).toEqual(["cloudA-sm/aws/secret/team/app/db", "cloudA-sm/aws/secret/top"]);
    expect(await specOf("keep:KvSecret").list!(ctx())).toEqual(["secret/team/app/db", "secret/top"]);
    // The service has no list of custom applications, and one configuration.
    expect(specOf("keep:SyncRepoHostApp").list).toBeUndefined();
    expect(specOf("keep:SyncConfig").list).toBeUndefined();
  });

  test("the printed program declares them as they are; running it adopts them without a write", async () => {
    const objects = [
      ...(await importObjects(ctx(), specOf("keep:SyncCloudASmDestination"), ["cloudA-sm/aws"])),
      ...(await importObjects(ctx(), specOf("keep:SyncAssociation"), ["cloudA-sm/aws/secret/top"])),
    ];
    const text = programText(objects);
    expect(text).toBe(`import { keep } from "pulumi-keepstack";

// accessKeyId: the service does not return it; declare it if the object has one (as fromConfig("cloudASmAwsAccessKeyId"), with \`pulumi config set --secret cloudASmAwsAccessKeyId\`).
// secretAccessKey: the service does not return it; declare it if the object has one (as fromConfig("cloudASmAwsSecretAccessKey"), with \`pulumi config set --secret cloudASmAwsSecretAccessKey\`).
const cloudASmAws = new keep.sync.CloudASmDestination("cloudA-sm-aws", {
  name: "aws",
  region: "eu-west-1",
  customTags: {
    team: "x",
  },
  granularity: "secret-path",
  adopt: true,
});

new keep.sync.Association("cloudA-sm-aws-secret-top", {
  destinationType: "cloudA-sm",
  destinationName: cloudASmAws.name,
  mount: "secret",
  secretName: "top",
  adopt: true,
});
`);
    const body = text.replace(/^import .*\n/, "");
    stack.keep.log.clear();
    expect(summarize((await stack.engine.up(() => new Function("keep", body)(keep))).steps)).toEqual({ create: 2 });
    expect(stack.keep.log.entries.filter((e) => e.method !== "GET")).toEqual([]);
  });
});
