/** Compile-time tests of the mesh service's resources and functions (compiled by types.test.ts). */
import * as pulumi from "@pulumi/pulumi";
import { mesh } from "pulumi-keepstack";
import { Equal, Expect } from "./type-assertions";

declare const text: pulumi.Output<string>;
declare const maybeSeconds: pulumi.Output<number | undefined>;

export function acceptsInputsAtEveryLevel() {
  new mesh.Partition("plain", { name: "team-a" });
  new mesh.Partition("outputs", { name: text, description: text, deletionTimeoutSeconds: maybeSeconds, adopt: pulumi.output(true) });
}

export function rejectsWrongTypes() {
  // @ts-expect-error the timeout is a number of seconds
  new mesh.Partition("text-timeout", { name: "p", deletionTimeoutSeconds: "60" });
  // @ts-expect-error name is required
  new mesh.Partition("no-name", { description: "d" });
}

export function outputTypes(partition: mesh.Partition) {
  type Checks = [
    Expect<Equal<typeof partition.name, pulumi.Output<string>>>,
    Expect<Equal<typeof partition.description, pulumi.Output<string>>>,
    Expect<Equal<typeof partition.createIndex, pulumi.Output<number>>>,
    Expect<Equal<typeof partition.deletedAt, pulumi.Output<string | undefined>>>,
  ];
  return [] as unknown as Checks;
}

export async function functionsTakePlainArguments() {
  const answer = await mesh.authorize({ target: "db", clientCertUri: "spiffe://t/ns/default/dc/dc1/svc/web", clientCertSerial: "0a:1b" });
  const roots = await mesh.getCaRoots({ index: 7, wait: "30s" });
  const leaf = await mesh.getLeafCertificate({ service: "web", wait: 30 });
  type Checks = [
    Expect<Equal<typeof answer, mesh.AuthorizeResult>>,
    Expect<Equal<typeof roots.roots, mesh.CaRoot[]>>,
    Expect<Equal<typeof leaf.privateKeyPem, pulumi.Output<string>>>,
  ];
  // @ts-expect-error index is a number
  await mesh.getCaRoots({ index: "7" });
  // @ts-expect-error the serial is required
  await mesh.authorize({ target: "db", clientCertUri: "spiffe://t/ns/default/dc/dc1/svc/web" });
  // @ts-expect-error an unknown argument
  await mesh.getLeafCertificate({ service: "web", namespce: "ns" });
  return [] as unknown as Checks;
}
