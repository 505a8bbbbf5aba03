/** examples/transform, run as a program through the harness against the emulator and an embedded PostgreSQL. */
import * as path from "node:path";
import { Engine, summarize } from "../../../harness";
import { KeepEmulator, startKeepEmulator } from "../../../emulator/keep";
import { transformAccess } from "../../../emulator/keep/transform";
import { keepConfig } from "../../support/keep-stack";
import { EmbeddedPostgres, startEmbeddedPostgres } from "./pglite";

const exampleDir = path.join(__dirname, "..", "..", "..", "examples", "transform");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const example = require(path.join(exampleDir, "index.ts")) as () => Promise<Record<string, unknown>>;

describe("examples/transform", () => {
  let keep: KeepEmulator;
  let db: EmbeddedPostgres;
  let engine: Engine;
  beforeAll(async () => {
    db = await startEmbeddedPostgres();
    keep = await startKeepEmulator();
    engine = new Engine({
      project: "keepstack-transform",
      cwd: exampleDir,
      config: {
        ...keepConfig(keep),
        "transform:databaseUrl": db.connectionString,
        "transform:storePassword": "store-password",
        "transform:ddlPassword": "ddl-password",
      },
      secretConfig: ["keep:token", "transform:storePassword", "transform:ddlPassword"],
    });
  });
  afterAll(async () => {
    await engine.close();
    await transformAccess(keep.state).closeStores();
    await keep.close();
    await db.close();
  });

  test("preview, up, a second up that keeps the token, destroy", async () => {
    expect(summarize((await engine.preview(example)).steps)).toEqual({ create: 8 });
    const up = await engine.up(example);
    expect(summarize(up.steps)).toEqual({ create: 8 });
    expect(up.outputs.sampleCard).toMatch(/^\d{4}-\d{4}-\d{4}-\d{4}$/);
    expect(up.outputs.sampleCard).not.toBe("4111-1111-1111-1111");
    expect(up.outputs.maskedId).toBe("###-##-####");
    const rows = await db.query<{ metadata: string }>("SELECT metadata FROM public.tokens");
    expect(rows).toEqual([{ metadata: "purpose=billing" }]);
    const state = JSON.stringify(engine.exportState());
    expect(state).not.toContain("store-password");
    expect(state).not.toContain("ddl-password");

    const again = await engine.up(example);
    expect(summarize(again.steps)).toEqual({ same: 8 });
    expect(again.outputs.billingContactToken).toBe(up.outputs.billingContactToken);
    expect(again.outputs.sampleCard).toBe(up.outputs.sampleCard);

    expect(summarize((await engine.destroy()).steps)).toEqual({ delete: 8 });
    expect(keep.objects.list({ mount: "transform", kind: "transformation" })).toEqual([]);
  });
});
