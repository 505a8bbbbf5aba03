/** The provider in state: small, credential-free, one per registered type, matching the classes. */
import * as fs from "node:fs";
import * as path from "node:path";
import { keep, workspaces, mesh } from "pulumi-keepstack";
import { provider } from "../../resources/host";
import { PACKAGE_NAME, shimText } from "../../provider/shim";
import { shortTypeOf, tokenOf } from "../../provider/spec";
import { allSpecs } from "../../resources/all-specs";

/** Every resource class the package exports, engine namespaces (`keep.sync`) included. */
function classesOf(ns: object): { __pulumiType: string }[] {
  return Object.values(ns).flatMap((v) => {
    if (typeof v === "function") return "__pulumiType" in v ? [v as { __pulumiType: string }] : [];
    return v && typeof v === "object" ? classesOf(v) : [];
  });
}
const classes = [keep, workspaces, mesh].flatMap(classesOf);

/** The provider the host gets from a shim's text, loaded as the host loads it (a module whose `handler` it calls). */
function load(text: string, host: unknown): unknown {
  const module = { exports: {} as { handler?: () => unknown } };
  const required: string[] = [];
  new Function("exports", "require", "module", text)(module.exports, (id: string) => (required.push(id), host), module);
  return { provider: module.exports.handler?.(), required };
}

describe("the provider in state", () => {
  test.each(allSpecs.map((s) => tokenOf(s)))("%s is one line of at most 150 bytes, naming only the package and the type", (token) => {
    const text = shimText(token);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(150);
    // Nothing but the type: no path, no credential (the type's own name aside).
    expect(text.split(JSON.stringify(shortTypeOf(token))).join("")).not.toMatch(/\/work\/|node_modules|token:|password|secret/i);
    const asked: string[] = [];
    const host = { provider: (type: string) => (asked.push(type), "the provider") };
    expect(load(text, host)).toEqual({ provider: "the provider", required: [`${PACKAGE_NAME}/host`] });
    expect(asked).toEqual([shortTypeOf(token)]);
  });

  test("the host's provider of a type has every method the provider host calls, one object per type", () => {
    const acl = provider("keep:AclPolicy");
    for (const method of ["configure", "check", "diff", "create", "read", "update", "delete"]) expect(typeof acl[method as keyof typeof acl]).toBe("function");
    expect(provider("keep:AclPolicy")).toBe(acl);
    expect(provider("keep:EgpPolicy")).not.toBe(acl);
  });

  test("a type the installed package does not have fails on its first call, naming the type and what to do", () => {
    expect(() => provider("keep:NoSuchThing").check({}, {})).toThrow(
      "pulumi-nodejs:dynamic/keep:NoSuchThing is not a resource type of the installed pulumi-keepstack: install the version that wrote this state, or a newer one",
    );
  });

  test("the package name the shim requires is this package's", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
    expect(manifest.name).toBe(PACKAGE_NAME);
    const host = manifest.exports["./host"];
    expect(typeof host === "string" ? host : host.default).toBe("./dist/resources/host.js");
  });

  test("every resource class is registered under its own token, and every spec has a class", () => {
    const tokens = allSpecs.map((s) => tokenOf(s));
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(classes.map((c) => c.__pulumiType).sort()).toEqual([...tokens].sort());
  });
});
