/** Workspace `check` on any input: it never throws, and every failure names a property of the input. */
import fc from "fast-check";
import { createContext } from "../../provider/context";
import { createMachine } from "../../provider/object-machine";
import { workspaceInputShape } from "../../resources/workspaces/workspace-inputs";
import { workspaceSpec } from "../../resources/workspaces/workspace";

// The service's address is set (a missing one is a failure of its own, on the setting: see tests/provider/messages.spec.ts).
const machine = createMachine(workspaceSpec, () => createContext((key) => (key === "workspaces:address" ? "http://127.0.0.1:1" : undefined), {}));
const keys = Object.keys(workspaceInputShape);

describe("Workspace check on arbitrary inputs", () => {
  test("never throws; each failure names the property (or a property inside it) that was given", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...keys), fc.oneof(fc.jsonValue(), fc.constant(null), fc.dictionary(fc.constantFrom("identifier", "oauthTokenId", "branch", "executionMode"), fc.jsonValue()))),
        async (inputs) => {
          const { failures } = await machine.check({}, { name: "ws", ...inputs });
          for (const failure of failures) {
            const root = failure.property.split(/[.[]/)[0];
            expect(keys).toContain(root);
            expect(failure.reason).not.toMatch(/Cannot read properties|undefined is not/);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test("vcsRepo: null is one failure, on vcsRepo", async () => {
    const { failures } = await machine.check({}, { name: "ws", vcsRepo: null });
    expect(failures).toEqual([{ property: "vcsRepo", reason: expect.stringMatching(/object/) }]);
  });
});
