/**
 * The contract every registered resource keeps, checked over the registry so a new resource gets it
 * without new test code: preview is pure (check and diff under a context whose service clients
 * throw), unknown values pass check and plan a change, `fromId(naturalId(x))` gives back x's ID
 * inputs, every argument is documented for the editor, and the provider in state stays small.
 */
import * as path from "node:path";
import * as ts from "typescript";
import { machineOf } from "../../provider/machine";
import { shimText } from "../../provider/shim";
import { isOperationSpec, shortTypeOf, tokenOf } from "../../provider/spec";
import { UNKNOWN } from "../../provider/unknowns";
import { registeredResources } from "../../resources/all-specs";
import { throwingContext } from "../support/contexts";
import { sampleFor } from "../support/samples";

const resources = registeredResources.map((r) => [r.path, r] as const);

describe.each(resources)("%s", (_path, { spec }) => {
  const machine = machineOf(spec, () => throwingContext({ "app:secret": "s3cret" }, { APP_SECRET: "s3cret" }));
  const sample = () => sampleFor(tokenOf(spec)).inputs;

  test("check accepts its sample, and check and diff reach no service", async () => {
    const news = sample();
    const checked = await machine.check({}, news);
    expect(checked.failures).toEqual([]);
    const olds = { ...checked.inputs };
    expect(await machine.diff("id", olds, checked.inputs)).toMatchObject({ changes: false, replaces: [] });
  });

  test("unknown values pass check and plan a change", async () => {
    const inputs = sample();
    const unknowns = Object.fromEntries(Object.keys(inputs).map((k) => [k, UNKNOWN]));
    expect((await machine.check({}, unknowns)).failures).toEqual([]);
    const olds = (await machine.check({}, inputs)).inputs;
    for (const key of Object.keys(inputs)) {
      const diff = await machine.diff("id", olds, { ...olds, [key]: UNKNOWN });
      expect({ key, changes: diff.changes }).toEqual({ key, changes: true });
    }
  });

  if (!isOperationSpec(spec)) {
    test("fromId(naturalId(x)) gives back the inputs the ID holds", async () => {
      const inputs = (await machine.check({}, sample())).inputs;
      const id = spec.naturalId(inputs as never);
      const back = spec.fromId(id) as Record<string, unknown>;
      for (const [key, value] of Object.entries(back)) expect({ key, value }).toEqual({ key, value: inputs[key] });
      expect(spec.naturalId({ ...inputs, ...back } as never)).toBe(id);
    });
  }

  test("the provider in state stays small and names only the type", () => {
    const text = shimText(tokenOf(spec));
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(150);
    expect(text.split(JSON.stringify(shortTypeOf(tokenOf(spec)))).join("")).not.toMatch(/\/work\/|node_modules|password|secret/i);
  });
});

describe("documentation", () => {
  /** The arguments of each resource class without JSDoc, read from the package's types as an editor does. */
  function undocumentedArguments(): Record<string, string[]> {
    const root = path.join(__dirname, "..", "..");
    const program = ts.createProgram({ rootNames: [path.join(root, "index.ts")], options: { strict: true, skipLibCheck: true, types: ["node"] } });
    const checker = program.getTypeChecker();
    const entry = checker.getSymbolAtLocation(program.getSourceFile(path.join(root, "index.ts"))!)!;
    const missing: Record<string, string[]> = {};
    for (const { path: classPath } of registeredResources) {
      const [first, ...rest] = classPath.split(".");
      let symbol = checker.getExportsOfModule(entry).find((s) => s.name === first)!;
      for (const part of rest) {
        const type = checker.getTypeOfSymbol(checker.getAliasedSymbol(symbol));
        symbol = type.getProperty(part) ?? checker.getExportsOfModule(checker.getAliasedSymbol(symbol)).find((s) => s.name === part)!;
      }
      const classType = checker.getTypeOfSymbol(symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
      const construct = classType.getConstructSignatures()[0];
      const args = checker.getTypeOfSymbol(construct.getParameters()[1]);
      missing[classPath] = checker
        .getPropertiesOfType(checker.getNonNullableType(args))
        .filter((p) => ts.displayPartsToString(p.getDocumentationComment(checker)).trim() === "")
        .map((p) => p.name);
    }
    return missing;
  }

  test("every argument of every resource class has JSDoc", () => {
    const missing = undocumentedArguments();
    expect(Object.keys(missing)).toEqual(registeredResources.map((r) => r.path));
    expect(Object.entries(missing).filter(([, names]) => names.length > 0)).toEqual([]);
  });
});
