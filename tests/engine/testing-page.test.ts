/**
 * docs/testing.md's complete example runs as written: its Pulumi.yaml, program, tsconfig and test
 * copied out of the page into a project with the packed package and the packed emulator installed
 * (what the page says to install), and its test run with `node --test` from the project's folder:
 * the real CLI through the Automation API against the emulator the test starts.
 */
import { ENGINE_TIMEOUT, Project } from "../support/real-engine";
import { pageBlocks } from "../support/pages";

test(
  "docs/testing.md: the program's test passes as written, through the Automation API against the emulator",
  async () => {
    const [projectFile] = pageBlocks("docs/testing.md", "yaml");
    const [program] = pageBlocks("docs/testing.md", "ts");
    const [tsconfig] = pageBlocks("docs/testing.md", "json");
    const [testFile] = pageBlocks("docs/testing.md", "js");
    expect(testFile).toContain('require("keepstack-emulator")');
    const project = await Project.create({
      name: "testing-page",
      runtime: "nodejs",
      node: "program-tests",
      files: { "Pulumi.yaml": projectFile, "index.ts": program, "tsconfig.json": tsconfig, "test/program.test.js": testFile },
    });
    // As the page says: `node --test` with no argument, which Node 20 and 22 both take.
    const run = await project.exec(process.execPath, ["--test"], { expect: "either" });
    expect([run.code, run.stdout]).toEqual([0, expect.stringMatching(/# pass 1\n# fail 0/)]);
    // The CLI's progress, shown by `onOutput`.
    expect(run.stdout).toMatch(/\+ +3 created/);
  },
  ENGINE_TIMEOUT,
);
