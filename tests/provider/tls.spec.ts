/**
 * A certificate the handshake refuses, for each service client and for the functions: the error says
 * what is wrong with the certificate in words and names `<service>:caCert` and `<service>:skipTlsVerify`
 * with their environment variables; a CA given as PEM text or as a file is trusted; verification is
 * skipped only when asked.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { mesh, workspaces } from "../../index";
import { adviceFor, failureMessage } from "../../provider/advice";
import { resolveServiceConfig } from "../../provider/config";
import { createContext } from "../../provider/context";
import { ApiError } from "../../provider/errors";
import { KeepClient } from "../support/by-path";
import { MeshClient } from "../support/mesh-client";
import { certificateProblemOf } from "../../provider/tls-problems";
import { WorkspacesClient } from "../support/by-path";
import { startTlsServer, TlsServer } from "../support/tls";

let server: TlsServer;
let scratch: string;
let caFile: string;

beforeAll(async () => {
  server = await startTlsServer((req, res) => {
    const url = req.url ?? "";
    req.resume();
    if (req.method === "PUT") {
      req.on("end", () => res.end());
      return;
    }
    if (url.startsWith("/api/v2/")) {
      res.setHeader("Content-Type", "application/vnd.api+json");
      const one = { id: "ws-tls", type: "workspaces", attributes: { name: "tls-ok" }, relationships: { organization: { data: { id: "acme", type: "organizations" } } } };
      res.end(JSON.stringify(url.includes("/organizations/") ? { data: [one], meta: { pagination: { "next-page": null } } } : { data: one }));
    } else if (url.startsWith("/v1/agent/connect/ca/roots")) {
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ ActiveRootID: "tls-ok", TrustDomain: "t", Roots: [] }));
    } else {
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ keys: ["tls-ok"] }));
    }
  });
  scratch = await mkdtemp(path.join(os.tmpdir(), "tls-"));
  caFile = path.join(scratch, "ca.pem");
  await writeFile(caFile, server.caPem);
});
afterAll(async () => {
  await server.close();
  await rm(scratch, { recursive: true, force: true });
});

type Service = "keep" | "workspaces" | "mesh";
const ENV: Record<Service, { address: string; caCert: string; skip: string }> = {
  keep: { address: "KEEP_ADDR", caCert: "KEEP_CACERT", skip: "KEEP_SKIP_VERIFY" },
  workspaces: { address: "WORKSPACES_ADDR", caCert: "WORKSPACES_CACERT", skip: "WORKSPACES_SKIP_VERIFY" },
  mesh: { address: "MESH_HTTP_ADDR", caCert: "MESH_CACERT", skip: "MESH_SKIP_VERIFY" },
};

/** One call of each client that reaches the server, answering a value to compare. */
const CALLS: Record<Service, (config: ReturnType<typeof resolveServiceConfig>) => Promise<unknown>> = {
  keep: (config) => new KeepClient(config).list("sys/policies/acl"),
  workspaces: async (config) => (await new WorkspacesClient(config).read("/workspaces/ws-tls"))?.data.attributes.name,
  mesh: async (config) => (await new MeshClient(config).caRoots()).body.ActiveRootID,
};
const EXPECTED: Record<Service, unknown> = { keep: ["tls-ok"], workspaces: "tls-ok", mesh: "tls-ok" };

const configOf = (service: Service, settings: Record<string, string>, env: NodeJS.ProcessEnv = {}) =>
  resolveServiceConfig(service, (key) => ({ [`${service}:address`]: server.address, [`${service}:maxRetries`]: "0", ...settings })[key], env);

const refusal = (service: Service) =>
  new RegExp(
    `^${service}: \\S+ \\S+ failed without an answer from https:\\/\\/\\S+: the server's certificate was signed by a CA that is not trusted .*\\(UNABLE_TO_VERIFY_LEAF_SIGNATURE\\)$`,
  );

describe.each(["keep", "workspaces", "mesh"] as const)("%s client TLS", (service) => {
  const env = ENV[service];

  test("a certificate no trusted CA signed is refused, in words, pointing at caCert and skipTlsVerify", async () => {
    const error = (await CALLS[service](configOf(service, {})).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(0);
    expect(error.message).toMatch(refusal(service));
    expect(adviceFor(error)).toBe(
      `trust the CA that signed the server's certificate: set ${service}:caCert (or ${env.caCert}) to its PEM text or to a PEM file, ` +
        `or, only if an unverified connection is acceptable, set ${service}:skipTlsVerify (or ${env.skip}) to true`,
    );
    expect(adviceFor(error)).not.toMatch(/reachable/);
    // A refused handshake sent nothing: the service cannot have acted.
    expect(error.mayHaveActed).toBe(false);
  });

  test("the CA given as PEM text, as a file, or through the environment is trusted", async () => {
    expect(await CALLS[service](configOf(service, { [`${service}:caCert`]: server.caPem }))).toEqual(EXPECTED[service]);
    expect(await CALLS[service](configOf(service, { [`${service}:caCert`]: caFile }))).toEqual(EXPECTED[service]);
    const fromEnv = resolveServiceConfig(service, () => undefined, { [env.address]: server.address, [env.caCert]: caFile });
    expect(await CALLS[service](fromEnv)).toEqual(EXPECTED[service]);
  });

  test("another CA in caCert is named as the one that did not sign it", async () => {
    const other = await startTlsServer((_req, res) => res.end());
    try {
      const error = (await CALLS[service](configOf(service, { [`${service}:caCert`]: other.caPem })).catch((e: unknown) => e)) as ApiError;
      expect(error.message).toContain(`the CA certificates of ${service}:caCert (or ${env.caCert}) did not sign it`);
    } finally {
      await other.close();
    }
  });

  test("verification is skipped only when asked", async () => {
    await expect(CALLS[service](configOf(service, { [`${service}:skipTlsVerify`]: "false" }))).rejects.toThrow(refusal(service));
    expect(await CALLS[service](configOf(service, { [`${service}:skipTlsVerify`]: "true" }))).toEqual(EXPECTED[service]);
    expect(await CALLS[service](configOf(service, {}, { [env.skip]: "true" }))).toEqual(EXPECTED[service]);
  });
});

describe("TLS of the archive store and the functions", () => {
  test("an upload to an untrusted store is refused in words, not retried, and names no URL", async () => {
    const client = new WorkspacesClient(configOf("workspaces", { "workspaces:maxRetries": "2" }));
    let streams = 0;
    const url = `${server.address}/_archivist/v1/object/secret-object-id`;
    const error = (await client.upload(url, () => (streams++, Readable.from([Buffer.from("x")]))).catch((e: unknown) => e)) as ApiError;
    expect(error.message).toMatch(/^workspaces: PUT <upload-url> failed without an answer: the server's certificate was signed by a CA that is not trusted/);
    expect(error.message).not.toContain("secret-object-id");
    expect(streams).toBe(1);
    const trusted = new WorkspacesClient(configOf("workspaces", { "workspaces:caCert": server.caPem }));
    expect(await trusted.upload(url, () => Readable.from([Buffer.from("xyz")]))).toEqual({ bytes: 3, attempts: 1 });
  });

  test("a workspaces function says what is wrong with the certificate and what to set", async () => {
    const settings: Record<string, string> = { "workspaces:address": server.address, "workspaces:organization": "acme", "workspaces:maxRetries": "0" };
    const error = (await workspaces.listWorkspaces({}, createContext((key) => settings[key], {})).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^workspaces\.listWorkspaces\(.*\) failed: workspaces: GET \S+ failed without an answer from \S+: the server's certificate was signed by a CA that is not trusted/);
    expect(error.message).toContain("set workspaces:caCert (or WORKSPACES_CACERT) to its PEM text or to a PEM file");
    expect(error.message).toContain("set workspaces:skipTlsVerify (or WORKSPACES_SKIP_VERIFY) to true");
    settings["workspaces:caCert"] = caFile;
    expect((await workspaces.listWorkspaces({}, createContext((key) => settings[key], {}))).map((w) => w.name)).toEqual(["tls-ok"]);
  });

  test("a mesh function says what is wrong with the certificate and what to set", async () => {
    const saved = { ...process.env };
    process.env.MESH_HTTP_ADDR = server.address;
    process.env.MESH_MAX_RETRIES = "0";
    try {
      const error = (await mesh.getCaRoots().catch((e: unknown) => e)) as Error;
      expect(error.message).toMatch(/failed: mesh: GET \S+ failed without an answer from \S+: the server's certificate was signed by a CA that is not trusted/);
      expect(error.message).toContain("set mesh:caCert (or MESH_CACERT)");
      expect(error.message).toContain("set mesh:skipTlsVerify (or MESH_SKIP_VERIFY) to true");
    } finally {
      process.env = saved;
    }
  });
});

describe("certificate problems in words", () => {
  const config = { service: "keep" as const };
  test.each([
    ["DEPTH_ZERO_SELF_SIGNED_CERT", /self-signed/, /set keep:caCert \(or KEEP_CACERT\)/],
    ["SELF_SIGNED_CERT_IN_CHAIN", /chain ends in a self-signed CA/, /set keep:caCert/],
    ["CERT_HAS_EXPIRED", /has expired/, /must be replaced \(a CA in keep:caCert \(or KEEP_CACERT\) cannot make it valid\)/],
    ["ERR_TLS_CERT_ALTNAME_INVALID", /does not name the host/, /use in keep:address \(or KEEP_ADDR\) a host name the certificate names/],
  ])("%s", (code, reason, advice) => {
    const problem = certificateProblemOf(config, code)!;
    expect(problem.reason).toMatch(reason);
    expect(problem.advice).toMatch(advice);
    expect(problem.advice).toMatch(/set keep:skipTlsVerify \(or KEEP_SKIP_VERIFY\) to true$/);
  });

  test("other failures are no certificate problem, and keep the reachability advice", () => {
    expect(certificateProblemOf(config, "ECONNREFUSED")).toBeUndefined();
    expect(failureMessage("x", new ApiError("keep", "GET", "/v1/x", 0, [], { code: "ECONNREFUSED" }))).toMatch(/check that the service is reachable/);
  });
});
