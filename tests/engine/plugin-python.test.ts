/**
 * docs/plugin.md in Python, run by the real CLI through the SDK `pulumi package add` generates: the
 * page's program through its life, then list inputs (an EGP policy's paths) that the SDK sends, every
 * resource's example in the SDK's docstrings run under the SDK's mocks, and docs/import.md's import of
 * a whole cluster into a Python project.
 * Python projects share one virtualenv per run (PyPI's `pulumi` installed once), so every Python
 * flow of the suite is in this file, one after another.
 */
import * as path from "node:path";
import { Emulator, startEmulator } from "keepstack-emulator";
import { unmark } from "../../provider/plugin/values";
import { startEmbeddedPostgres } from "../keep/transform/pglite";
import { countSteps, ENGINE_TIMEOUT, expectNoComplaints, Project, pythonVirtualenv, stepsOf } from "../support/real-engine";
import { importFileOf, makeCluster } from "./cluster";
import { credentialsToAdd, expectOnlyCredentialsAdded } from "./imported-code";
import { Language, packageAddLine, PAGE, pageBlock, pluginDoorFlow, pluginSettings } from "./plugin-door";
import { exampleInputsByToken, sdkExamples, tokensWithExamples } from "./sdk-examples";

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ clusters: ["main", "dr"] });
});
afterAll(() => emu?.close());

/**
 * A Python project's files. Its virtualenv is the run's (PyPI's `pulumi` installed once), named by
 * its absolute path where a user would write `venv`.
 */
export async function pythonProject(name: string, program: string) {
  return {
    name,
    runtime: "python" as const,
    files: {
      "Pulumi.yaml": `name: ${name}\nruntime:\n  name: python\n  options:\n    toolchain: pip\n    virtualenv: ${await pythonVirtualenv()}\n`,
      "__main__.py": program,
      "requirements.txt": "pulumi>=3.0.0,<4.0.0\n",
    },
    node: "package" as const,
  };
}

test(
  `${PAGE} in Python: package add, a teammate's clone, preview with no request, up, update and replacement named, refresh after drift, destroy`,
  async () => {
    const python: Language = {
      project: await pythonProject("keepstack-python", pageBlock("python", "import pulumi_keepstack as keepstack")),
      programFile: "__main__.py",
      addPlugin: async (author) => {
        await author.exec("bash", ["-c", packageAddLine()]);
      },
      sdkReference: { file: "requirements.txt", text: /^sdks\/keepstack$/m },
      ignore: ["__pycache__/", "*.egg-info/", "build/"],
    };
    const { clone } = await pluginDoorFlow(python, emu);

    // Lists go where the type is a list, or any value: an EGP policy's paths, a rekey's shares.
    clone.write(
      "__main__.py",
      [
        "import pulumi_keepstack as keepstack",
        'keepstack.keep.EgpPolicy("guard", name="guard", enforcement_level="soft-mandatory", paths=["secret/*", "sys/*"], policy="main = rule { true }")',
        "",
      ].join("\n"),
    );
    const up = await clone.pulumi(["up", "--yes", "--skip-preview", "--json"]);
    expect(countSteps(stepsOf(up))).toEqual({ create: 1 });
    expect(emu.keep.getPolicy("egp", "guard")).toMatchObject({ paths: ["secret/*", "sys/*"], enforcement_level: "soft-mandatory" });
    const destroy = await clone.pulumi(["destroy", "--yes", "--skip-preview", "--json"]);
    expect(countSteps(stepsOf(destroy))).toEqual({ delete: 1 });
    expectNoComplaints(up, destroy);
  },
  ENGINE_TIMEOUT,
);

test(
  "every resource's example in the Python SDK's docstrings runs under the SDK's mocks, declaring its example's inputs",
  async () => {
    const project = await Project.create(await pythonProject("keepstack-python-examples", ""));
    await project.exec("bash", ["-c", packageAddLine()]);
    const examples = sdkExamples(path.join(project.dir, "sdks", "keepstack"), "python");
    expect(examples.length).toBe(tokensWithExamples().length);
    const programs = examples.map((example, i) => {
      project.write(`examples/example_${i}.py`, example.code);
      return `examples/example_${i}.py`;
    });
    const ran = await project.exec(path.join(await pythonVirtualenv(), "bin", "python"), [path.join(__dirname, "mocked-examples.py"), ...programs]);
    expect(unmark(JSON.parse(ran.stdout)).plain).toEqual(exampleInputsByToken());
  },
  ENGINE_TIMEOUT,
);

test(
  "docs/import.md: a cluster of every importable type into a Python project through the SDK; the written code plans only the credentials added",
  async () => {
    const cluster = await startEmulator({ clusters: ["main", "dr"] });
    const postgres = await startEmbeddedPostgres();
    try {
      const made = await makeCluster(cluster, postgres.connectionString);
      const listed = await importFileOf(cluster, made.ids);
      const project = await Project.create(await pythonProject("keepstack-import-python", "import imported\n"));
      await project.exec("bash", ["-c", packageAddLine()]);
      await project.stack("dev", pluginSettings(cluster).config, pluginSettings(cluster).secrets);
      project.write("cluster.json", JSON.stringify(listed.file, null, 2));
      const ran = await project.pulumi(["import", "--file", "cluster.json", "--yes", "--protect=false", "--out", "imported.py"]);
      const credentials = credentialsToAdd(listed, made.inputs);
      project.write("imported.py", credentials.addTo("python", project.read("imported.py")));
      await expectOnlyCredentialsAdded(project, credentials);
      expectNoComplaints(ran);
    } finally {
      await cluster.close();
      await postgres.close();
    }
  },
  ENGINE_TIMEOUT,
);
