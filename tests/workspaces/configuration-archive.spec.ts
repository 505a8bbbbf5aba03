/** Which files a configuration version takes (exclusion globs) and the content hash preview compares. */
import { chmod, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { compileExclusions, contentHash, listArchiveEntries } from "../../resources/workspaces/configuration-archive";
import { makeTree, removeTree } from "./workspaces-stack";

describe("exclusion globs", () => {
  const cases: [string, string, boolean, boolean][] = [
    // pattern, path, is a directory, excluded
    ["*.log", "debug.log", false, true],
    ["*.log", "logs/deep/debug.log", false, true],
    ["*.log", "debug.log.txt", false, false],
    [".iac/", ".iac", true, true],
    [".iac/", "modules/.iac", true, true],
    [".iac/", ".iac", false, false],
    ["modules/*.tf", "modules/main.tf", false, true],
    ["modules/*.tf", "modules/net/main.tf", false, false],
    ["modules/**/*.tf", "modules/net/main.tf", false, true],
    ["modules/**/*.tf", "modules/main.tf", false, true],
    ["/main.tf", "main.tf", false, true],
    ["/main.tf", "sub/main.tf", false, false],
    ["docs/**", "docs/a/b.md", false, true],
    ["file?.tf", "file1.tf", false, true],
    ["file?.tf", "file10.tf", false, false],
    ["[ab].tf", "a.tf", false, true],
    ["[!ab].tf", "a.tf", false, false],
    ["[!ab].tf", "c.tf", false, true],
    ["a+b(c).tf", "a+b(c).tf", false, true],
  ];
  test.each(cases)("%s on %s (directory: %s) → excluded: %s", (pattern, file, isDirectory, excluded) => {
    expect(compileExclusions([pattern])(file, isDirectory)).toBe(excluded);
  });
});

describe("listArchiveEntries and contentHash", () => {
  let tree: string;
  beforeEach(async () => {
    tree = await makeTree({ "main.tf": "a", "modules/net/main.tf": "b", "notes.log": "c", "run.sh": "#!/bin/sh\n" });
  });
  afterEach(() => removeTree(tree));

  test("entries are sorted, directories before their contents, exclusions left out with everything below them", () => {
    expect(listArchiveEntries(tree, ["*.log"]).map((e) => `${e.type}:${e.path}`)).toEqual([
      "file:main.tf",
      "directory:modules",
      "directory:modules/net",
      "file:modules/net/main.tf",
      "file:run.sh",
    ]);
    expect(listArchiveEntries(tree, ["modules/"]).map((e) => e.path)).toEqual(["main.tf", "notes.log", "run.sh"]);
  });

  test("the hash changes with content, names and the executable bit; not with excluded files or timestamps", async () => {
    const base = contentHash(tree, ["*.log"]);
    expect(base).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(contentHash(tree, ["*.log"])).toBe(base);
    await writeFile(path.join(tree, "notes.log"), "changed");
    expect(contentHash(tree, ["*.log"])).toBe(base);
    await writeFile(path.join(tree, "main.tf"), "a");
    expect(contentHash(tree, ["*.log"])).toBe(base);
    expect(contentHash(tree)).not.toBe(base);

    await chmod(path.join(tree, "run.sh"), 0o755);
    const executable = contentHash(tree, ["*.log"]);
    expect(executable).not.toBe(base);
    await rename(path.join(tree, "main.tf"), path.join(tree, "root.tf"));
    expect(contentHash(tree, ["*.log"])).not.toBe(executable);
    await rename(path.join(tree, "root.tf"), path.join(tree, "main.tf"));
    await writeFile(path.join(tree, "modules/net/main.tf"), "b2");
    expect(contentHash(tree, ["*.log"])).not.toBe(executable);
  });
});
