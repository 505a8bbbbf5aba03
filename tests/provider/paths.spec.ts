/** Paths from templates: values percent-encoded, a missing value an error, never an empty segment. */
import { pathTemplate, route } from "../../provider/paths";

describe("paths", () => {
  test("a value goes into its segment percent-encoded; a multi-segment one segment by segment", () => {
    expect(route("{mount*}/roles/{name}", { mount: "team a/cloud", name: "r/1" })).toBe("team%20a/cloud/roles/r%2F1");
  });

  test.each([
    ["absent", {}],
    ["undefined", { name: undefined }],
    ["empty", { name: "" }],
  ])("a %s value is an error naming the template and the parameter", (_what, values) => {
    expect(() => route("sys/policies/acl/{name}", values)).toThrow("sys/policies/acl/{name}: no value for {name}");
  });

  test("a natural ID (raw) renders what it is given and parses back", () => {
    const t = pathTemplate("{mount*}/roles/{name}");
    expect(t.render({ mount: "cloud", name: "deploy" }, true)).toBe("cloud/roles/deploy");
    expect(t.parse("team/cloud/roles/deploy")).toEqual({ mount: "team/cloud", name: "deploy" });
  });
});
