/**
 * Quickstart: the three policy kinds of the secrets service.
 * Configure `keep:address` and `keep:token` (a secret), then `pulumi up`.
 */
import { keep } from "pulumi-keepstack";

export = async () => {
  // Who may read application secrets.
  const readers = new keep.AclPolicy("app-readers", {
    name: "app-readers",
    policy: `path "secret/data/app/*" {
  capabilities = ["read", "list"]
}
`,
  });

  // Role governing policy: attached to identities, checked on every request they make.
  const businessHours = new keep.RgpPolicy("business-hours", {
    name: "business-hours",
    enforcementLevel: "soft-mandatory",
    policy: `import "time"
main = rule { time.now.hour >= 8 and time.now.hour < 18 }
`,
  });

  // Endpoint governing policy: checked on requests to the listed paths, whoever makes them.
  const productionGuard = new keep.EgpPolicy("production-guard", {
    name: "production-guard",
    enforcementLevel: "hard-mandatory",
    paths: ["secret/data/production/*"],
    policy: `main = rule { request.operation in ["read", "list"] }
`,
  });

  return { acl: readers.id, rgp: businessHours.id, egp: productionGuard.id };
};
