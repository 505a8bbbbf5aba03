/**
 * The plugin door as a user of any language meets it (docs/plugin.md), run by the real CLI: the
 * plugin added to a project with `pulumi package add` as the page says, the project committed and
 * cloned by a teammate (`npm ci`, `pulumi install`, `pulumi preview`), then the page's program
 * through its life: a preview that sends no request (one input unknown until another resource
 * exists), up, an update and a replacement that `preview --diff` names (`~ policy`, `+- name`) and
 * nothing else, a refresh after a change made out of band, and destroy. The program's second
 * cluster is reached through an explicit provider given only the two settings it writes.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Emulator } from "keepstack-emulator";
import { pageBlocks } from "../support/pages";
import { pluginConfigOf, PLUGIN_SECRET_CONFIG, serviceEnv } from "../support/plugin-sdk";
import { countSteps, expectNoComplaints, INSTALL_CLOSES_PLUGIN, once, packedTarball, Project, ProjectOptions, repoRoot, run, stepsOf } from "../support/real-engine";

export const PAGE = "docs/plugin.md";

/** The page's block of a language that contains `marker`. */
export function pageBlock(language: string, marker: string | RegExp): string {
  const found = pageBlocks(PAGE, language).filter((b) => (typeof marker === "string" ? b.includes(marker) : marker.test(b)));
  if (found.length !== 1) throw new Error(`${PAGE}: expected one ${language} block with ${marker}, found ${found.length}`);
  return found[0];
}

/** A TypeScript project of a program (the examples' tsconfig), with the packed package installed. */
export const typescriptProject = (name: string, program: string): ProjectOptions => ({
  name,
  runtime: "nodejs",
  files: {
    "Pulumi.yaml": `name: ${name}\nruntime: nodejs\n`,
    "index.ts": program,
    "tsconfig.json": fs.readFileSync(path.join(repoRoot, "examples", "quickstart", "tsconfig.json"), "utf8"),
  },
  node: "typescript",
});

/**
 * A TypeScript project with the plugin added by the page's commands as written (`npm install
 * pulumi-keepstack`, the packed file standing in for the name, which is not published; `pulumi
 * package add`): the SDK generated, installed and built. Made once per run and copied for each test
 * that needs one; the page's TypeScript flow checks what the commands left (plugin-typescript.test.ts).
 */
export async function typescriptSdkProject(name: string, program: string, options: Partial<ProjectOptions> = {}): Promise<Project> {
  const template = await once("typescript-sdk", async () => {
    const project = await Project.create({ ...typescriptProject("keepstack-sdk", ""), sharedByTheRun: true });
    const block = pageBlock("sh", "pulumi package add");
    await runShellBlock(project, block.replace("npm install pulumi-keepstack", `npm install ${await packedTarball()}`));
    return project.dir;
  });
  const project = await Project.create({ name, runtime: "nodejs", copyOf: template, files: { "index.ts": program }, ...options });
  project.write("Pulumi.yaml", project.read("Pulumi.yaml").replace(/^name: .*$/m, `name: ${name}`));
  return project;
}

/** The page's `pulumi package add` line, as written. */
export const packageAddLine = (): string => pageBlock("sh", "pulumi package add").split("\n").find((l) => l.startsWith("pulumi package add"))!;

export interface Language {
  /** The project as its author starts it, before the plugin is added. */
  project: ProjectOptions;
  /** The author's project with the plugin added, where the run already has one (instead of `project` and `addPlugin`). */
  author?(): Promise<Project>;
  /** The program's file, which the changes edit. */
  programFile: string;
  /** Adds the plugin to the author's project, as the page says for this language. */
  addPlugin(author: Project): Promise<void>;
  /** What the project's own dependency file says of the SDK after that (package.json, requirements.txt, go.mod). */
  sdkReference?: { file: string; text: RegExp };
  /** A line the generated SDK must hold (an enum constant as the schema names it). */
  generated?: { file: string; text: RegExp };
  /** Lines of .gitignore beyond `node_modules/`. */
  ignore?: string[];
  /** The page's commands a teammate runs in the clone (`npm ci`, `pulumi install`, `pulumi preview`). */
  teammate?: string;
  /** What a teammate has made before the page's commands (a Python virtualenv). */
  prepareClone?(clone: Project): Promise<void>;
  /** Sets the stack's settings (by default all at once with `pulumi config set-all`). */
  configure?(project: Project, emu: Emulator): Promise<void>;
}

/** What `up` of the page's program leaves on the services. */
export function expectPageProgramMade(emu: Emulator): void {
  const workspace = emu.workspaces.findWorkspace(emu.workspaces.organization, "app");
  expect(workspace?.attributes.description).toBe("The application's infrastructure");
  expect(emu.keep.getPolicy("acl", "app-secrets")?.policy).toBe(`path "secret/data/${workspace!.id}/*" { capabilities = ["read"] }`);
  // As declared, and the owner the package records on its last line.
  expect(emu.mesh.getPartition("team-a")?.Description).toMatch(/^Team A\n\n\(managed by Pulumi stack [^/\s]+\/dev, resource team\)$/);
  // The second cluster's policy went to that cluster, through the provider given two settings.
  expect(emu.clusters.dr.getPolicy("acl", "readers")?.policy).toBe('path "secret/*" { capabilities = ["read", "list"] }');
}

/** The settings of the page's programs against the emulator: the plugin's keys, and the second cluster's. */
export function pluginSettings(emu: Emulator): { config: Record<string, string>; secrets: string[] } {
  return {
    config: { ...pluginConfigOf(emu), drAddress: emu.clusters.dr.url, drToken: emu.clusters.dr.rootToken },
    secrets: [...PLUGIN_SECRET_CONFIG, "drToken"],
  };
}

/** The emulator's addresses and tokens as `eval "$(npx keepstack-emulator --detach)"` exports them. */
export function emulatorEnv(emu: Emulator): Record<string, string> {
  return { ...serviceEnv(emu), KEEP_DR_ADDR: emu.clusters.dr.url, KEEP_DR_TOKEN: emu.clusters.dr.rootToken };
}

/** Runs a page's shell block as written, line by line in one bash, with `env` added to the project's. */
export function runShellBlock(project: Project, block: string, env: Record<string, string> = {}, cwd = project.dir) {
  return run("bash", ["-euo", "pipefail", "-c", block], { cwd, env: { ...project.env, ...env } });
}

/** The author's project committed with git and cloned, as a teammate gets it. */
export async function cloneOf(author: Project, language: Language, name: string): Promise<Project> {
  fs.writeFileSync(path.join(author.dir, ".gitignore"), ["node_modules/", ...(language.ignore ?? [])].join("\n") + "\n");
  const git = (args: string[], cwd: string) => run("git", ["-c", "user.name=author", "-c", "user.email=author@example.com", ...args], { cwd, env: author.env });
  await git(["init", "--quiet"], author.dir);
  await git(["add", "."], author.dir);
  await git(["commit", "--quiet", "-m", "the project"], author.dir);
  const clone = await Project.create({ name, runtime: language.project.runtime, typeCheck: language.project.typeCheck });
  fs.rmSync(clone.dir, { recursive: true, force: true });
  await git(["clone", "--quiet", author.dir, clone.dir], path.dirname(clone.dir));
  return clone;
}

export interface FlowResult {
  author: Project;
  clone: Project;
}

/**
 * The page's flow for one language against `emu` (which has a second cluster, `dr`). The program
 * file must hold the page's program. With `life: false` it ends after the teammate's preview (the
 * TypeScript program's life runs in docs-program.test.ts, through the CLI and the harness).
 */
export async function pluginDoorFlow(language: Language, emu: Emulator, options: { life?: boolean } = {}): Promise<FlowResult> {
  let author: Project;
  if (language.author) author = await language.author();
  else {
    author = await Project.create(language.project);
    await language.addPlugin(author);
  }
  expect(author.read("Pulumi.yaml")).toMatch(/^packages:\n {2}keepstack: \.\/node_modules\/pulumi-keepstack\/plugin$/m);
  if (language.sdkReference) expect(author.read(language.sdkReference.file)).toMatch(language.sdkReference.text);
  if (language.generated) expect(author.read(language.generated.file)).toMatch(language.generated.text);

  // A teammate's clone: what the page says to commit, then the page's three commands.
  const clone = await cloneOf(author, language, `${language.project.name}-clone`);
  await language.prepareClone?.(clone);
  await clone.pulumi(["stack", "init", "dev"]);
  if (language.configure) await language.configure(clone, emu);
  else await clone.setConfig(pluginSettings(emu).config, pluginSettings(emu).secrets);
  emu.clearLogs();
  const teammate = await runShellBlock(clone, language.teammate ?? pageBlock("sh", "pulumi install\npulumi preview"));
  expect({ requests: emu.requestCount() }).toEqual({ requests: 0 });
  for (const name of ["readers", "app", "team", "app-secrets", "dr-readers"]) expect(teammate.stdout).toMatch(new RegExp(`\\+ +keepstack:\\S+ +${name} +create`));
  if (options.life === false) {
    expectNoComplaints({ ran: teammate, allowed: INSTALL_CLOSES_PLUGIN });
    return { author, clone };
  }

  const up = await clone.pulumi(["up", "--yes", "--skip-preview", "--json"]);
  expect(countSteps(stepsOf(up))).toEqual({ create: 5 });
  expectPageProgramMade(emu);

  // An update in place and a replacement, as `preview --diff` names them.
  const program = clone.read(language.programFile);
  // The first policy text is the readers' (the second cluster's, the same text, stays).
  const changed = program.replace('capabilities = ["read", "list"] }', 'capabilities = ["read"] }').replace("team-a", "team-b");
  expect(changed).not.toBe(program);
  clone.write(language.programFile, changed);
  emu.clearLogs();
  const diff = await clone.pulumi(["preview", "--diff"]);
  expect(emu.requestCount()).toBe(0);
  expect(diff.stdout).toMatch(/~ keepstack:keep:AclPolicy: \(update\)[\s\S]*?\[urn=\S+::readers\][\s\S]*?~ policy: /);
  expect(diff.stdout).toMatch(/\+-keepstack:mesh:Partition: \(replace\)[\s\S]*?\[urn=\S+::team\][\s\S]*?~ name\s*: "team-a" => "team-b"/);
  // Those two and nothing else: what up made (the SDK's defaults included) plans no change of its own.
  expect(diff.stdout.slice(diff.stdout.lastIndexOf("Resources:")).match(/^\s+(~|\+-|\+|-)\s*\d+ to \w+$/gm)?.map((l) => l.trim())).toEqual(["~ 1 to update", "+-1 to replace"]);
  const changedUp = await clone.pulumi(["up", "--yes", "--skip-preview", "--json"]);
  const changes = stepsOf(changedUp).filter((s) => s.op !== "same");
  expect(changes.map((s) => [s.name, s.op]).sort()).toEqual([["readers", "update"], ["team", "replace"]]);
  expect(emu.keep.getPolicy("acl", "readers")?.policy).toBe('path "secret/*" { capabilities = ["read"] }');
  expect(emu.mesh.getPartition("team-b")).toBeDefined();

  // A change made out of band: refresh reads it into the state.
  emu.keep.putPolicy("acl", "readers", { policy: 'path "secret/*" { capabilities = ["deny"] }' });
  const refresh = await clone.pulumi(["refresh", "--yes", "--skip-preview", "--json"]);
  expect(stepsOf(refresh).filter((s) => s.op !== "same").map((s) => [s.name, s.op])).toEqual([["readers", "update"]]);
  const refreshed = (await clone.exportStack()).deployment.resources!.find((r) => r.urn.endsWith("::readers"));
  expect(refreshed?.outputs?.policy).toBe('path "secret/*" { capabilities = ["deny"] }');

  const destroy = await clone.pulumi(["destroy", "--yes", "--skip-preview", "--json"]);
  expect(countSteps(stepsOf(destroy))).toEqual({ delete: 5 });
  expect(emu.workspaces.findWorkspace(emu.workspaces.organization, "app")).toBeUndefined();
  expect(emu.keep.getPolicy("acl", "app-secrets")).toBeUndefined();
  expect(emu.clusters.dr.getPolicy("acl", "readers")).toBeUndefined();
  expectNoComplaints({ ran: teammate, allowed: INSTALL_CLOSES_PLUGIN }, up, changedUp, refresh, destroy);
  return { author, clone };
}
