/**
 * The mesh service's contract (`/v1`): partitions and the agent's connect endpoints, in the
 * service's own field names. Answers are read leniently: fields the contract does not name are kept,
 * and a field the service may leave out has its documented default.
 */
import { z } from "zod";
import { Endpoint, endpoint, listOf } from "../contract";

const index = z.number().int().min(0);

export const partition = z.looseObject({
  Name: z.string(),
  Description: z.string().default(""),
  /** Present once the partition is marked for deletion. */
  DeletedAt: z.string().optional(),
  CreateIndex: index,
  ModifyIndex: index,
});

const partitionWrite = z.strictObject({ Name: z.string(), Description: z.string() });

const caRoot = z.looseObject({
  ID: z.string(),
  Name: z.string(),
  SerialNumber: z.number(),
  SigningKeyID: z.string(),
  ExternalTrustDomain: z.string(),
  NotBefore: z.string(),
  NotAfter: z.string(),
  RootCert: z.string(),
  IntermediateCerts: z.array(z.string()).nullable().default(null),
  Active: z.boolean(),
  PrivateKeyType: z.string(),
  PrivateKeyBits: z.number(),
  CreateIndex: index,
  ModifyIndex: index,
});

export const caRoots = z.looseObject({
  ActiveRootID: z.string(),
  TrustDomain: z.string().optional(),
  Roots: listOf(caRoot),
});

export const leafCertificate = z.looseObject({
  SerialNumber: z.string(),
  CertPEM: z.string(),
  PrivateKeyPEM: z.string(),
  Service: z.string(),
  ServiceURI: z.string(),
  ValidAfter: z.string(),
  ValidBefore: z.string(),
  Namespace: z.string().default(""),
  CreateIndex: index,
  ModifyIndex: index,
});

const authorizeRequest = z.strictObject({
  Target: z.string(),
  ClientCertURI: z.string(),
  ClientCertSerial: z.string(),
  /** Rule 4: the body's namespace wins over `ns` and the header. */
  Namespace: z.string().optional(),
});

export const authorizeAnswer = z.looseObject({ Authorized: z.boolean(), Reason: z.string().default("") });

/**
 * The agent's endpoints take the admin partition in the query (the call's, else `mesh:partition`),
 * and the namespace as `ns` where it applies: the client's profile reads this from the row.
 */
export interface AgentScope {
  agentScope: { namespace: boolean };
}

const agent = <Row extends Endpoint>(row: Row, scope: { namespace: boolean }): Row & AgentScope => Object.assign(row, { agentScope: scope });

export const mesh = {
  readPartition: endpoint("GET partition/{name}", { answer: partition, notFound: "absent" }),
  listPartitions: endpoint("GET partitions", { answer: listOf(partition) }),
  createPartition: endpoint("PUT partition", { body: partitionWrite, answer: partition }),
  /** The payload's `Name` must be the path's name when given. */
  updatePartition: endpoint("PUT partition/{name}", { body: partitionWrite, answer: partition }),
  /** Marks the partition for deletion; it goes in the background. */
  deletePartition: endpoint("DELETE partition/{name}"),
  /** The namespace goes as `ns` and, when given, in the body's `Namespace`. */
  authorize: agent(endpoint("POST agent/connect/authorize", { body: authorizeRequest, answer: authorizeAnswer }), { namespace: true }),
  caRoots: agent(endpoint("GET agent/connect/ca/roots", { answer: caRoots }), { namespace: false }),
  leafCertificate: agent(endpoint("GET agent/connect/ca/leaf/{service}", { answer: leafCertificate }), { namespace: true }),
};

export type MeshPartition = z.output<typeof partition>;
export type MeshCaRoots = z.output<typeof caRoots>;
export type MeshCaRoot = MeshCaRoots["Roots"][number];
export type MeshLeafCertificate = z.output<typeof leafCertificate>;
export type MeshAuthorizeRequest = z.input<typeof authorizeRequest>;
export type MeshAuthorizeAnswer = z.output<typeof authorizeAnswer>;
