/**
 * The mesh service: an admin partition managed as a resource, and the agent's connect functions
 * (CA roots, a service's leaf certificate, an authorisation decision) read at deployment time.
 *
 *   pulumi config set mesh:address https://mesh.example.com:8501
 *   pulumi config set --secret mesh:token <token with operator:write and service:write on "web">
 *   pulumi up
 */
import * as pulumi from "@pulumi/pulumi";
import { mesh } from "pulumi-keepstack";

export = async () => {
  const config = new pulumi.Config("example");
  const service = config.get("service") ?? "web";
  const upstream = config.get("upstream") ?? "db";

  const partition = new mesh.Partition("team-west", {
    name: "team-west",
    description: "Services of the west team",
  });

  const roots = await mesh.getCaRoots();
  const leaf = await mesh.getLeafCertificate({ service });
  // Would a connection from this service's certificate to the upstream be allowed by the intentions?
  const decision = await mesh.authorize({
    target: upstream,
    clientCertUri: leaf.serviceUri,
    clientCertSerial: leaf.serialNumber,
  });

  return {
    partition: partition.name,
    partitionCreateIndex: partition.createIndex,
    activeRootId: roots.activeRootId,
    trustedRoots: roots.roots.map((r) => r.rootCertPem),
    certificate: leaf.certificatePem,
    // A secret: encrypted in the stack's outputs.
    privateKey: leaf.privateKeyPem,
    certificateExpires: leaf.validBefore,
    mayConnect: decision.authorized,
    reason: decision.reason,
  };
};
