/**
 * The program a CI workflow runs (workflow.yml): who may read application secrets, and a guard on
 * every path of the secrets service. Configure `keep:address` and `keep:token` (a secret).
 */
import { keep } from "pulumi-keepstack";

export = async () => {
  const readers = new keep.AclPolicy("app-readers", {
    name: "app-readers",
    policy: `path "secret/data/app/*" {
  capabilities = ["read", "list"]
}
`,
  });

  // On every path ("*"): the policy pack demands hard-mandatory for such a guard.
  const guard = new keep.EgpPolicy("business-hours", {
    name: "business-hours",
    enforcementLevel: "hard-mandatory",
    paths: ["*"],
    policy: `import "time"
main = rule { time.now.hour >= 6 and time.now.hour < 22 }
`,
  });

  return { readers: readers.name, guard: guard.name };
};
