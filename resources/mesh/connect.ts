/**
 * Functions over the agent's connect endpoints: `authorize`, `getCaRoots`, `getLeafCertificate`.
 * Dynamic providers have no invoke, so these run in the program's process with the program's stack
 * configuration (`mesh:address`, `mesh:token`, ...), through `programContext()`.
 *
 * `getCaRoots` and `getLeafCertificate` accept a blocking query (`index`, `wait`): pass the `index` of
 * a previous answer and the call returns once the roots rotate or a new certificate is needed, or when
 * the wait ends. `authorize` has no blocking queries on the service.
 */
import type * as pulumi from "@pulumi/pulumi";
import { secret } from "@pulumi/pulumi/output";
import { z } from "zod";
import { mesh, MeshLeafCertificate } from "../../provider/contracts/mesh";
import { BlockingQuery, parseWait } from "../../provider/mesh-client";
import { FunctionError, functionFamily } from "../../provider/functions";

const text = (what: string) => z.string({ error: `must be a string (${what})` }).min(1, `must not be empty (${what})`);

const blockingArgs = {
  /**
   * Index of a previous answer (its `index`): the call waits until the data changes past it (root
   * rotation, a new certificate needed) or until `wait` ends.
   */
  index: z.number().int().min(0).optional(),
  /** Longest wait of a blocking query: a duration such as "30s" or "5m", or a number of seconds; at most 10 minutes (default 5). */
  wait: z.union([z.string(), z.number()]).optional(),
};

const authorizeArgs = z.strictObject({
  /** Name of the service the client wants to connect to. */
  target: text("the destination service"),
  /** URI SAN of the client certificate, such as `spiffe://<trust-domain>/ns/default/dc/dc1/svc/web`. */
  clientCertUri: text("the client certificate's URI SAN"),
  /** Serial number of the client certificate, colon-separated hex (`0a:1b:...`). */
  clientCertSerial: text("the client certificate's serial"),
  /** Namespace of the target (enterprise); overrides `mesh:namespace`. */
  namespace: z.string().optional(),
});

const caRootsArgs = z.strictObject({ ...blockingArgs });

const leafArgs = z.strictObject({
  /** Service the certificate identifies; it need not exist in the catalog, but the token needs `service:write` on it. */
  service: text("the service the certificate identifies"),
  /** Namespace of the service (enterprise); overrides `mesh:namespace`. */
  namespace: z.string().optional(),
  ...blockingArgs,
});

export interface AuthorizeArgs extends z.input<typeof authorizeArgs> {}
export interface GetCaRootsArgs extends z.input<typeof caRootsArgs> {}
export interface GetLeafCertificateArgs extends z.input<typeof leafArgs> {}

export interface AuthorizeResult {
  /** Whether the client may connect to the target. */
  authorized: boolean;
  /** Why: the intention that matched, or the default behaviour. */
  reason: string;
}

export interface CaRoot {
  /** The root's ID (its certificate's SHA-1 fingerprint, colon-separated hex). */
  id: string;
  /** The root's name, as the CA provider gives it. */
  name: string;
  /** The root certificate's serial number. */
  serialNumber: number;
  /** The ID of the key that signs leaf certificates under this root. */
  signingKeyId: string;
  /** The trust domain of the CA that made this root. */
  externalTrustDomain: string;
  /** RFC 3339. */
  notBefore: string;
  /** RFC 3339. */
  notAfter: string;
  /** PEM certificate of the root. */
  rootCertPem: string;
  /** PEM intermediates; empty when the service lists none. */
  intermediateCertPems: string[];
  /** Whether this is the root that signs new certificates. */
  active: boolean;
  /** The type of the root's key (`ec` or `rsa`). */
  privateKeyType: string;
  /** The size of the root's key, in bits. */
  privateKeyBits: number;
  /** Index of the write that made the root. */
  createIndex: number;
  /** Index of the last write to the root. */
  modifyIndex: number;
}

export interface GetCaRootsResult {
  /** ID of the root that signs new certificates. */
  activeRootId: string;
  /** SPIFFE trust domain, when the service names it. */
  trustDomain?: string;
  /** Every root the service trusts, the active one among them. */
  roots: CaRoot[];
  /** The answer's index (`X-Mesh-Index`): pass it as `index` to wait for the next rotation. */
  index: number;
}

export interface GetLeafCertificateResult {
  /** The service the certificate identifies. */
  service: string;
  /** URI SAN of the certificate (SPIFFE ID of the service). */
  serviceUri: string;
  /** The namespace of the service. */
  namespace: string;
  /** Colon-separated hex. */
  serialNumber: string;
  /** PEM certificate. */
  certificatePem: string;
  /** PEM private key of the certificate, as a Pulumi secret. */
  privateKeyPem: pulumi.Output<string>;
  /** Start of validity (RFC 3339). */
  validAfter: string;
  /** End of validity (RFC 3339). */
  validBefore: string;
  /** Index of the write that made the certificate. */
  createIndex: number;
  /** Index of the last write to the certificate. */
  modifyIndex: number;
  /** The answer's index (`X-Mesh-Index`): pass it as `index` to wait for the next certificate. */
  index: number;
}

/** An error of a mesh function: which call, what the service said, what to do. */
export class MeshFunctionError extends FunctionError {}

const family = functionFamily({ prefix: "mesh", error: MeshFunctionError });

/** A blocking query's arguments: `wait` needs `index`, and must be a duration the service takes. */
function checkBlocking(args: { index?: number; wait?: string | number }, refuse: (message: string) => never): void {
  if (args.index === undefined && args.wait !== undefined) refuse("wait applies to a blocking query: give index too");
  if (args.wait !== undefined) {
    try {
      parseWait(args.wait);
    } catch (e) {
      refuse((e as Error).message);
    }
  }
}

const blockingOf = (args: { index?: number; wait?: string | number }): BlockingQuery | undefined =>
  args.index === undefined ? undefined : { index: args.index, wait: args.wait };

/**
 * Asks the agent whether a client certificate may connect to a service, from the intentions (an
 * intention with layer-7 permissions counts as deny). Verify the client certificate against
 * `getCaRoots()` first. Needs `service:write` on the target.
 */
export const authorize = family.define<AuthorizeArgs, AuthorizeResult, z.output<typeof authorizeArgs>>({
  name: "authorize",
  args: authorizeArgs,
  about: (a) => `target "${a.target}"`,
  advice: (a) => ({ permission: `service:write on "${a.target}"` }),
  async run(a, ctx) {
    const namespace = a.namespace || undefined;
    const body = { Target: a.target, ClientCertURI: a.clientCertUri, ClientCertSerial: a.clientCertSerial, ...(namespace ? { Namespace: namespace } : {}) };
    const { body: answer } = await ctx.mesh().send(mesh.authorize, { body, options: { namespace } });
    return { authorized: answer.Authorized === true, reason: answer.Reason ?? "" };
  },
});

/** The trusted CA roots and the active root's ID. Needs no permission. */
export const getCaRoots = family.define<GetCaRootsArgs, GetCaRootsResult, z.output<typeof caRootsArgs>>({
  name: "getCaRoots",
  args: caRootsArgs,
  check: checkBlocking,
  async run(a, ctx) {
    const answer = await ctx.mesh().send(mesh.caRoots, { options: { blocking: blockingOf(a) } });
    const roots = (answer.body.Roots ?? []).map(
      (r): CaRoot => ({
        id: r.ID,
        name: r.Name,
        serialNumber: r.SerialNumber,
        signingKeyId: r.SigningKeyID,
        externalTrustDomain: r.ExternalTrustDomain,
        notBefore: r.NotBefore,
        notAfter: r.NotAfter,
        rootCertPem: r.RootCert,
        intermediateCertPems: r.IntermediateCerts ?? [],
        active: r.Active,
        privateKeyType: r.PrivateKeyType,
        privateKeyBits: r.PrivateKeyBits,
        createIndex: r.CreateIndex,
        modifyIndex: r.ModifyIndex,
      }),
    );
    return {
      activeRootId: answer.body.ActiveRootID,
      ...(answer.body.TrustDomain ? { trustDomain: answer.body.TrustDomain } : {}),
      roots,
      index: answer.index ?? Math.max(0, ...roots.map((r) => r.modifyIndex)),
    };
  },
});

/**
 * The leaf certificate of a service, signed by the active root, with its private key as a secret.
 * The agent caches it until it nears expiry or the roots rotate. Needs `service:write` on the service.
 */
export const getLeafCertificate = family.define<GetLeafCertificateArgs, GetLeafCertificateResult, z.output<typeof leafArgs>>({
  name: "getLeafCertificate",
  args: leafArgs,
  about: (a) => `service "${a.service}"`,
  advice: (a) => ({ permission: `service:write on "${a.service}"` }),
  check: checkBlocking,
  async run(a, ctx) {
    const answer = await ctx.mesh().send(mesh.leafCertificate, { params: { service: a.service }, options: { namespace: a.namespace || undefined, blocking: blockingOf(a) } });
    const leaf: MeshLeafCertificate = answer.body;
    return {
      service: leaf.Service,
      serviceUri: leaf.ServiceURI,
      namespace: leaf.Namespace,
      serialNumber: leaf.SerialNumber,
      certificatePem: leaf.CertPEM,
      privateKeyPem: secret(leaf.PrivateKeyPEM),
      validAfter: leaf.ValidAfter,
      validBefore: leaf.ValidBefore,
      createIndex: leaf.CreateIndex,
      modifyIndex: leaf.ModifyIndex,
      index: answer.index ?? leaf.ModifyIndex,
    };
  },
});
