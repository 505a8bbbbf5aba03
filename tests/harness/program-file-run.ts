/**
 * Runs program modules through the harness as the CLI would run them, by file, in a plain Node
 * process (the way a user's test runs them), and prints what each run planned as one JSON line.
 * Usage: `node -r ts-node/register/transpile-only program-file-run.ts <dir>`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { startKeepEmulator } from "keepstack-emulator";
import { Engine, programFile, summarize } from "../../dist/harness";

async function main(): Promise<void> {
  const dir = process.argv[2];
  const emu = await startKeepEmulator();
  emu.putPolicy("acl", "app-readers", { policy: 'path "secret/data/app/*" {\n  capabilities = ["read"]\n}\n' });
  // As `pulumi-keepstack import` prints a program: top-level statements, nothing exported.
  fs.writeFileSync(
    path.join(dir, "imported.ts"),
    'import { keep } from "pulumi-keepstack";\n\nnew keep.AclPolicy("app-readers", {\n  name: "app-readers",\n  policy: `path "secret/data/app/*" {\n  capabilities = ["read"]\n}\n`,\n  adopt: true,\n});\n',
  );
  // A program with outputs, its main exported as a function.
  fs.writeFileSync(
    path.join(dir, "outputs.ts"),
    'import { keep } from "pulumi-keepstack";\n\nexport = async () => {\n  const p = new keep.AclPolicy("ops", { name: "ops", policy: "# ops" });\n  return { name: p.name };\n};\n',
  );
  const engine = new Engine({ project: "program-file", cwd: path.join(__dirname, "..", ".."), config: { "keep:address": emu.url, "keep:token": emu.rootToken } });
  try {
    emu.log.clear();
    const adopted = summarize((await engine.up(programFile(path.join(dir, "imported.ts")))).steps);
    const writes = emu.log.entries.filter((e) => e.method !== "GET").length;
    const again = summarize((await engine.preview(programFile(path.join(dir, "imported.ts")))).steps);
    const outputs = (await engine.up(programFile(path.join(dir, "outputs.ts")))).outputs;
    const destroyed = summarize((await engine.destroy()).steps);
    console.log(JSON.stringify({ adopted, writes, again, outputs, destroyed }));
  } finally {
    await engine.close();
    await emu.close();
  }
}

void main();
