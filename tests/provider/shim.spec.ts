/** The serialized provider: small, credential-free, one per registered type, matching the classes. */
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { keep, workspaces, mesh } from "pulumi-keepstack";
import { createShim, PACKAGE_NAME } from "../../provider/shim";
import { shortTypeOf, tokenOf } from "../../provider/spec";
import { allSpecs } from "../../resources/registry";

/** Every resource class the package exports, engine namespaces (`keep.sync`) included. */
function classesOf(ns: object): { __pulumiType: string }[] {
  return Object.values(ns).flatMap((v) => {
    if (typeof v === "function") return "__pulumiType" in v ? [v as { __pulumiType: string }] : [];
    return v && typeof v === "object" ? classesOf(v) : [];
  });
}
const classes = [keep, workspaces, mesh].flatMap(classesOf);

describe("the serialized provider", () => {
  test.each(allSpecs.map((s) => tokenOf(s)))("%s serializes to at most 1500 bytes, naming only the package", async (token) => {
    const shim = createShim(token);
    // As pulumi.dynamic.Resource serializes it.
    const { text } = await pulumi.runtime.serializeFunction(() => shim, { allowSecrets: true });
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1500);
    expect(text).toContain(`require("${PACKAGE_NAME}/host")`);
    expect(text).toContain(JSON.stringify(shortTypeOf(token)));
    // Nothing but the type may be captured: no path, no credential (the type's own name aside).
    expect(text.split(JSON.stringify(shortTypeOf(token))).join("")).not.toMatch(/\/work\/|node_modules|token:|password|secret/i);
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
