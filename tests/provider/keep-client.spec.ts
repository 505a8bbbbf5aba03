/** The secrets-service client against the emulator: retries as data, clear errors, headers, TLS. */
import { KeepEmulator, startKeepEmulator } from "../../emulator/keep";
import { resolveServiceConfig } from "../../provider/config";
import { ApiError } from "../../provider/errors";
import { retryDelayMs, retryPolicyOf, serverWaitMs } from "../../provider/http";
import type { AxiosError } from "axios";
import { KeepClient } from "../support/by-path";
import { startTlsServer, TlsServer } from "../support/tls";

describe("KeepClient", () => {
  let emulator: KeepEmulator;
  const clientWith = (extra: Record<string, string> = {}) => {
    const config: Record<string, string> = {
      "keep:address": emulator.url,
      "keep:token": emulator.rootToken,
      "keep:retryBaseDelayMs": "5",
      ...extra,
    };
    return new KeepClient(resolveServiceConfig("keep", (k) => config[k], {}));
  };
  const path = "sys/policies/acl/retry-me";

  beforeAll(async () => {
    emulator = await startKeepEmulator();
  });
  afterAll(() => emulator.close());
  beforeEach(() => {
    emulator.log.clear();
    emulator.faults.clear();
  });

  test.each([412, 429, 500, 502, 503])("%i is retried with backoff until it succeeds", async (status) => {
    emulator.faults.inject({ times: 2, status });
    await clientWith().write(path, { policy: "# x" });
    expect(emulator.log.entries.map((e) => e.status)).toEqual([status, status, 204]);
  });

  test.each([400, 403, 404, 405])("%i is never retried", async (status) => {
    emulator.faults.inject({ times: 1, status });
    const error = await clientWith().request("POST", path, { policy: "# x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(status);
    expect(emulator.log.count).toBe(1);
  });

  test("a reset connection is retried", async () => {
    emulator.faults.inject({ times: 1, drop: true });
    await clientWith().write(path, { policy: "# x" });
    expect(emulator.log.entries.map((e) => e.fault ?? e.status)).toEqual(["drop", 204]);
  });

  test("a request that times out is retried, and the retry sees what the slow attempt did", async () => {
    // The service holds the first attempt until the client's timeout aborts it, then writes.
    emulator.faults.inject({ times: 1, holdUntilAborted: true });
    await clientWith({ "keep:timeoutSeconds": "1" }).write(path, { policy: "# slow" });
    expect(emulator.log.entries.map((e) => e.fault ?? e.status)).toEqual(["held", 204]);
    expect(emulator.getPolicy("acl", "retry-me")).toMatchObject({ policy: "# slow" });
  });

  test("a 429's Retry-After is waited out before the retry (through the client, not the helper)", async () => {
    emulator.faults.inject({ times: 1, status: 429, headers: { "Retry-After": "1" } });
    await clientWith().write(path, { policy: "# x" });
    const [limited, retried] = emulator.log.entries;
    expect([limited.status, retried.status]).toEqual([429, 204]);
    // Backoff alone would retry after about 5 ms (retryBaseDelayMs); the service asked for a second.
    expect(retried.receivedAt - limited.receivedAt).toBeGreaterThanOrEqual(1000);
  });

  test("a call may refuse retries (retry: false) or bring its own policy", async () => {
    emulator.faults.inject({ times: 3, status: 503 });
    const error = (await clientWith().request("POST", path, { policy: "# x" }, { retry: false }).catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(503);
    expect(error.retries).toBe(0);
    expect(emulator.log.count).toBe(1);

    emulator.log.clear();
    await expect(clientWith().request("POST", path, { policy: "# x" }, { retry: { retries: 1 } }).catch((e: ApiError) => e.retries)).resolves.toBe(1);
    expect(emulator.log.entries.map((e) => e.status)).toEqual([503, 503]);
    // The client's own policy is untouched by a call's.
    emulator.faults.clear();
    emulator.faults.inject({ times: 2, status: 503 });
    await clientWith().write(path, { policy: "# x" });
  });

  test("the error tells whether an earlier attempt may have acted: a lost answer or a 5xx to a write, not a 429 or a refused connection", async () => {
    // The service handles the write, the answer is lost, the retry is refused: the refusal may be about the first attempt's work.
    emulator.faults.inject({ times: 1, dropAfterHandling: true });
    emulator.faults.inject({ times: 1, status: 400 });
    const lost = (await clientWith().write(path, { policy: "# x" }).catch((e: unknown) => e)) as ApiError;
    expect(emulator.log.entries.map((e) => (e.fault === "drop" ? "drop" : e.status))).toEqual(["drop", 400]);
    expect(lost.earlierAttemptMayHaveActed).toBe(true);

    emulator.faults.inject({ times: 1, status: 502, match: /^POST / });
    emulator.faults.inject({ times: 1, status: 400 });
    expect(((await clientWith().write(path, { policy: "# x" }).catch((e: unknown) => e)) as ApiError).earlierAttemptMayHaveActed).toBe(true);

    emulator.faults.inject({ times: 1, status: 429, headers: { "retry-after": "0" } });
    emulator.faults.inject({ times: 1, status: 400 });
    const limited = (await clientWith().write(path, { policy: "# x" }).catch((e: unknown) => e)) as ApiError;
    expect(limited.earlierAttemptMayHaveActed).toBe(false);
    expect(limited.mayHaveActed).toBe(false);

    emulator.faults.inject({ times: 1, status: 503, match: /^GET / });
    emulator.faults.inject({ times: 1, status: 400 });
    expect(((await clientWith().read(path).catch((e: unknown) => e)) as ApiError).earlierAttemptMayHaveActed).toBe(false);
  });

  test("a call that must not run twice stops at a lost answer (retryWhenMayHaveActed: false), and says it may have acted", async () => {
    emulator.faults.inject({ times: 1, dropAfterHandling: true });
    const error = (await clientWith()
      .request("POST", path, { policy: "# once" }, { retry: { retryWhenMayHaveActed: false } })
      .catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(0);
    expect(error.mayHaveActed).toBe(true);
    expect(error.earlierAttemptMayHaveActed).toBe(false);
    expect(emulator.log.entries.map((e) => e.fault ?? e.status)).toEqual(["drop"]);
    expect(emulator.getPolicy("acl", "retry-me")).toMatchObject({ policy: "# once" });
    // Answers that say the service did not act are still retried.
    emulator.log.clear();
    emulator.faults.inject({ times: 1, status: 429, headers: { "retry-after": "0" } });
    await clientWith().request("POST", path, { policy: "# x" }, { retry: { retryWhenMayHaveActed: false } });
    expect(emulator.log.entries.map((e) => e.status)).toEqual([429, 204]);
  });

  test("the wait the server asks for wins over backoff; a rate-limit reset header counts too", () => {
    const policy = retryPolicyOf(resolveServiceConfig("keep", () => undefined, { KEEP_RETRY_BASE_MS: "100" }));
    const answer = (headers: Record<string, string>) => ({ response: { status: 429, headers } }) as unknown as AxiosError;
    expect(serverWaitMs(answer({ "retry-after": "2" }))).toBe(2000);
    expect(serverWaitMs(answer({ "x-ratelimit-reset": "0.5" }))).toBe(500);
    const asked = retryDelayMs(policy, 1, answer({ "retry-after": "2" }));
    expect(asked).toBeGreaterThanOrEqual(2000);
    expect(asked).toBeLessThanOrEqual(2100);
    for (let attempt = 1; attempt <= 4; attempt++) {
      const backoff = retryDelayMs(policy, attempt, answer({}));
      expect(backoff).toBeGreaterThanOrEqual(50 * 2 ** (attempt - 1));
      expect(backoff).toBeLessThanOrEqual(100 * 2 ** (attempt - 1));
    }
  });

  test("when retries run out the error names method, path, status, retries and the server's messages", async () => {
    emulator.faults.inject({ times: 10, status: 503 });
    const error = (await clientWith({ "keep:maxRetries": "2" }).read(path).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toBe("keep: GET /v1/sys/policies/acl/retry-me returned 503 after 2 retries: injected fault: status 503");
    expect(emulator.log.count).toBe(3);
  });

  test("a 403 names the refusal and never carries the token", async () => {
    const error = (await clientWith({ "keep:token": "not-a-token" }).read(path).catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(403);
    expect(error.message).toMatch(/GET \/v1\/sys\/policies\/acl\/retry-me returned 403: permission denied/);
    expect(JSON.stringify(error)).not.toContain("not-a-token");
    expect(error.message).not.toContain(emulator.rootToken);
    expect(JSON.stringify(emulator.log.entries)).not.toContain("not-a-token");
  });

  test("a list is GET ?list=true and a 404 list is empty", async () => {
    const client = clientWith();
    expect(await client.list("sys/policies/rgp")).toEqual([]);
    await client.write("sys/policies/rgp/one", { policy: "main = rule { true }", enforcement_level: "advisory" });
    expect(await client.list("sys/policies/rgp")).toEqual(["one"]);
    expect(emulator.log.lines()).toContain("GET /v1/sys/policies/rgp?list=true");
  });

  test("namespace and request headers", async () => {
    emulator.addNamespace("team-x");
    emulator.requireRequestHeader = true;
    try {
      const refused = await clientWith({ "keep:namespace": "team-x" }).read(path).catch((e: ApiError) => e);
      expect((refused as ApiError).status).toBe(412);
      const client = clientWith({ "keep:namespace": "team-x", "keep:requestHeader": "true", "keep:maxRetries": "0" });
      await client.write("sys/policies/acl/scoped", { policy: "# x" });
      expect(emulator.getPolicy("acl", "scoped", "team-x")?.policy).toBe("# x");
      expect(emulator.log.entries.at(-1)?.headers["x-keep-namespace"]).toBe("team-x");
      expect(emulator.log.entries.at(-1)?.headers["x-keep-request"]).toBe("true");
    } finally {
      emulator.requireRequestHeader = false;
    }
  });

  test("an unreachable address is a status-0 error naming the network failure", async () => {
    const config: Record<string, string> = { "keep:address": "http://127.0.0.1:9", "keep:maxRetries": "0" };
    const client = new KeepClient(resolveServiceConfig("keep", (k) => config[k], {}));
    const error = (await client.read(path).catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(0);
    expect(error.message).toMatch(/GET \/v1\/sys\/policies\/acl\/retry-me failed without an answer from http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  });
});

describe("KeepClient TLS", () => {
  let server: TlsServer;
  beforeAll(async () => {
    server = await startTlsServer((_req, res) => {
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ keys: ["tls-ok"] }));
    });
  });
  afterAll(() => server.close());

  const client = (extra: Record<string, string>) => {
    const config: Record<string, string> = { "keep:address": server.address, "keep:maxRetries": "0", ...extra };
    return new KeepClient(resolveServiceConfig("keep", (k) => config[k], {}));
  };

  test("an untrusted certificate is refused unless its CA is given", async () => {
    const error = (await client({}).list("x").catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(0);
    expect(await client({ "keep:caCert": server.caPem }).list("x")).toEqual(["tls-ok"]);
  });

  test("verification is skipped only when asked", async () => {
    expect(await client({ "keep:skipTlsVerify": "true" }).list("x")).toEqual(["tls-ok"]);
  });
});
