/**
 * The Automation API as CI uses it (docs/ci.md): the page's script, compiled as written, drives an
 * inline program and a local one through preview (no request to the services), up, refresh and
 * destroy, under the real CLI, with the services' settings in its environment only.
 */
import * as ts from "typescript";
import { Emulator, startEmulator } from "keepstack-emulator";
import { pageBlocks } from "../support/pages";
import { ENGINE_TIMEOUT, Project } from "../support/real-engine";

let emu: Emulator | undefined;
afterAll(() => emu?.close());

test(
  "docs/ci.md's script runs an inline and a local program: preview sends nothing, up makes, refresh finds no change, destroy removes; no token in the state",
  async () => {
    emu = await startEmulator();
    const [script, program] = pageBlocks("docs/ci.md", "ts");
    const [projectFile] = pageBlocks("docs/ci.md", "yaml");
    const js = ts.transpileModule(script, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText;
    const project = await Project.create({
      name: "automation",
      runtime: "nodejs",
      node: "typescript",
      files: { "ci.js": js, "program/Pulumi.yaml": projectFile, "program/index.ts": program },
    });
    // Only the environment holds the services' settings, as a CI job's secrets would.
    const env = { KEEP_ADDR: emu.keep.url, KEEP_TOKEN: emu.keep.rootToken };
    const ci = async (kind: string, command: string) => {
      const before = emu!.requestCount();
      const ran = await project.exec("node", ["ci.js", kind, command], { env });
      return { summary: JSON.parse(ran.stdout.trim().split("\n").pop()!) as Record<string, number>, requests: emu!.requestCount() - before };
    };

    for (const [kind, name] of [["inline", "ci-readers"], ["local", "ci-writers"]] as const) {
      const preview = await ci(kind, "preview");
      expect({ kind, preview }).toEqual({ kind, preview: { summary: { create: 2 }, requests: 0 } });
      expect(emu.keep.getPolicy("acl", name)).toBeUndefined();

      expect((await ci(kind, "up")).summary).toEqual({ create: 2 });
      expect(emu.keep.getPolicy("acl", name)?.policy).toContain("secret/*");
      const exported = await project.pulumi(["stack", "export", "--stack", "ci", "--show-secrets"], { cwd: kind === "local" ? `${project.dir}/program` : project.dir });
      expect(exported.stdout).toContain(name);
      expect(exported.stdout).not.toContain(emu.keep.rootToken);

      expect((await ci(kind, "refresh")).summary).toEqual({ same: 2 });
      expect((await ci(kind, "destroy")).summary).toEqual({ delete: 2 });
      expect(emu.keep.getPolicy("acl", name)).toBeUndefined();
    }
  },
  ENGINE_TIMEOUT,
);
