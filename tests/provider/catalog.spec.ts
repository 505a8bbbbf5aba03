/**
 * The catalog the provider host loads specs through: each export path names the token its spec
 * declares (the host finds a type's module by that token without loading the others), and loading
 * one type loads no other resource's module.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { specLoaders, specOfShortType, tokenOfPath } from "../../resources/catalog";
import { shortTypeOf, tokenOf } from "../../provider/spec";

describe("the catalog of specs", () => {
  test.each(Object.entries(specLoaders))("%s loads the spec of the token its path names", (classPath, load) => {
    const spec = load();
    expect(shortTypeOf(tokenOf(spec))).toBe(tokenOfPath(classPath));
    expect(specOfShortType(tokenOfPath(classPath))).toBe(spec);
  });

  test("a type the package does not have has no spec", () => {
    expect(specOfShortType("keep:NoSuchThing")).toBeUndefined();
  });

  test("the host answers a policy's check having loaded only that type's resource modules", () => {
    // A fresh process of the compiled package, as the provider host loads it.
    const script = `
      const host = require(${JSON.stringify(path.join(__dirname, "..", "..", "dist", "resources", "host.js"))});
      host.dispatch("keep:AclPolicy", [{ config: { get: () => undefined } }]);
      host.call("keep:AclPolicy", "check", [{}, { name: "x", policy: 'path "a" { capabilities = ["read"] }' }]).then((r) => {
        const loaded = Object.keys(require.cache).filter((k) => k.includes("/dist/resources/")).map((k) => k.split("/dist/resources/")[1]);
        console.log(JSON.stringify({ failures: r.failures, loaded }));
      });`;
    const run = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    const { failures, loaded } = JSON.parse(run.stdout) as { failures: unknown[]; loaded: string[] };
    expect(failures).toEqual([]);
    expect(loaded.sort()).toEqual(["catalog.js", "host.js", "keep/duration.js", "keep/policies/acl-document.js", "keep/policies/acl.js", "keep/policies/hcl1.js", "keep/policies/policy-common.js"]);
  });
});
