/**
 * The plain transport against axios' own http adapter: for every request and failure the clients
 * meet, the server sees the same request and the caller the same answer or error code. Requests it
 * does not take (queries, streams, absolute URLs) and every request under a proxy go to axios.
 */
import * as http from "node:http";
import { AddressInfo } from "node:net";
import axios, { AxiosError, AxiosInstance } from "axios";
import { proxyConfigured, transportFor } from "../../provider/transport";

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A server whose path says how to answer. */
function startServer(seen: Seen[]): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const { "accept-encoding": _ignored, ...headers } = req.headers;
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers, body });
      const path = (req.url ?? "").split("?")[0];
      if (path.endsWith("/ok")) {
        res.writeHead(200, { "Content-Type": "application/json", "X-Answer": "yes" });
        res.end(JSON.stringify({ data: { echoed: body } }));
      } else if (path.endsWith("/empty")) {
        res.writeHead(204).end();
      } else if (path.endsWith("/missing")) {
        res.writeHead(404, { "Content-Type": "application/json" }).end('{"errors":["no such thing"]}');
      } else if (path.endsWith("/broken")) {
        res.writeHead(503, { "Content-Type": "application/json", "Retry-After": "2" }).end('{"errors":["sealed"]}');
      } else if (path.endsWith("/redirect")) {
        res.writeHead(307, { Location: "/v1/ok" }).end();
      } else if (path.endsWith("/drop")) {
        req.socket.destroy();
      } else if (path.endsWith("/cut")) {
        // Headers and half a body, then the connection goes.
        res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "100" });
        res.write('{"data":');
        setImmediate(() => req.socket.destroy());
      } else if (path.endsWith("/hold")) {
        req.socket.on("close", () => undefined); // never answered; the client's timeout ends it
      } else {
        res.writeHead(200, { "Content-Type": "text/plain" }).end("not json");
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
      }),
    ),
  );
}

interface Outcome {
  status?: number;
  data?: unknown;
  header?: unknown;
  code?: string;
  message?: string;
}

async function outcome(client: AxiosInstance, method: string, url: string, data?: unknown): Promise<Outcome> {
  try {
    const response = await client.request({ method, url, data, headers: { "X-Keep-Namespace": "team" } });
    return { status: response.status, data: response.data, header: response.headers["x-answer"] };
  } catch (error) {
    const e = error as AxiosError;
    return { status: e.response?.status, data: e.response?.data, code: e.code, message: e.message };
  }
}

describe("plain transport", () => {
  const seen: Seen[] = [];
  let server: { url: string; close(): Promise<void> };
  const clients = (baseURL: string, timeout = 0) => {
    const agent = new http.Agent({ keepAlive: true });
    const common = { baseURL, timeout, maxRedirects: 0, headers: { "Content-Type": "application/json", "X-Keep-Token": "t0ken" }, httpAgent: agent };
    return {
      plain: axios.create({ ...common, adapter: transportFor(baseURL, agent), transitional: { silentJSONParsing: true, forcedJSONParsing: true, clarifyTimeoutError: true } }),
      general: axios.create({ ...common, adapter: "http", transitional: { silentJSONParsing: true, forcedJSONParsing: true, clarifyTimeoutError: true } }),
    };
  };

  beforeAll(async () => {
    server = await startServer(seen);
  });
  afterAll(() => server.close());
  beforeEach(() => {
    seen.length = 0;
  });

  test.each([
    ["POST", "sys/policies/acl/ok", { policy: 'path "a/*" { capabilities = ["read"] }', n: 1 }],
    ["GET", "/sys/policies/acl/ok", undefined],
    ["DELETE", "sys/policies/acl/empty", undefined],
    ["PATCH", "sys/policies/acl/ok", "raw text ü"],
    ["GET", "sys/missing", undefined],
    ["POST", "sys/broken", {}],
    ["GET", "sys/redirect", undefined],
    ["GET", "sys/text", undefined],
    ["GET", "sys/a b/ü/../%41/ok?x=1 2", undefined],
  ])("%s %s: the server sees the same request, the caller the same outcome", async (method, url, data) => {
    const { plain, general } = clients(`${server.url}/v1`);
    const viaGeneral = await outcome(general, method, url, data);
    const viaPlain = await outcome(plain, method, url, data);
    expect(viaPlain).toEqual(viaGeneral);
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[1].url.startsWith("/v1/")).toBe(true);
  });

  test("a path axios reads as absolute (`//...`) is left to axios, with the same outcome", async () => {
    const { plain, general } = clients(`${server.url}/v1`);
    const viaGeneral = await outcome(general, "PUT", "//sys/ok", {});
    expect(await outcome(plain, "PUT", "//sys/ok", {})).toEqual(viaGeneral);
    expect(viaGeneral.code).toBe("ERR_INVALID_URL");
  });

  test("an answer it decodes is what axios decodes", async () => {
    const { plain } = clients(`${server.url}/v1`);
    const response = await plain.post("sys/ok", { a: 1 });
    expect(response.data).toEqual({ data: { echoed: '{"a":1}' } });
    expect(response.headers["x-answer"]).toBe("yes");
  });

  test.each([
    ["a dropped connection", "sys/drop", 0],
    ["a body cut short", "sys/cut", 0],
    ["a request held past the timeout", "sys/hold", 200],
  ])("%s fails with the code axios gives", async (_what, url, timeout) => {
    const { plain, general } = clients(`${server.url}/v1`, timeout);
    const viaGeneral = await outcome(general, "POST", url, { x: 1 });
    const viaPlain = await outcome(plain, "POST", url, { x: 1 });
    expect(viaGeneral.code).toMatch(/^(ECONNRESET|ERR_BAD_RESPONSE|ETIMEDOUT)$/);
    expect({ code: viaPlain.code, status: viaPlain.status }).toEqual({ code: viaGeneral.code, status: viaGeneral.status });
  });

  test("a refused connection fails with ECONNREFUSED", async () => {
    const closed = await startServer([]);
    await closed.close();
    const { plain } = clients(`${closed.url}/v1`);
    expect((await outcome(plain, "GET", "sys/ok")).code).toBe("ECONNREFUSED");
  });

  test("queries, absolute URLs and streams go to axios' adapter, which receives them whole", async () => {
    const agent = new http.Agent({ keepAlive: true });
    const calls: string[] = [];
    const general = axios.getAdapter("http");
    // Watch which path a request takes by wrapping axios' own adapter.
    const spy = jest.spyOn(axios, "getAdapter");
    spy.mockImplementation(() => (config) => (calls.push(String(config.url)), general(config)));
    const watched = axios.create({ baseURL: `${server.url}/v1`, httpAgent: agent, adapter: transportFor(`${server.url}/v1`, agent) });
    spy.mockRestore();
    await watched.get("sys/ok", { params: { list: "true" } });
    await watched.get(`${server.url}/v1/sys/ok`);
    await watched.get("sys/ok", { responseType: "stream" }).then((r) => (r.data as NodeJS.ReadableStream).resume());
    await watched.get("sys/ok");
    expect(calls).toEqual(["sys/ok", `${server.url}/v1/sys/ok`, "sys/ok"]);
    expect(seen.map((s) => s.url)).toEqual(["/v1/sys/ok?list=true", "/v1/sys/ok", "/v1/sys/ok", "/v1/sys/ok"]);
  });

  test("under a proxy from the environment every request goes through it", async () => {
    const proxied: string[] = [];
    const proxy = http.createServer((req, res) => {
      proxied.push(`${req.method} ${req.url}`);
      res.writeHead(200, { "Content-Type": "application/json" }).end('{"via":"proxy"}');
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", () => resolve()));
    const saved = process.env.HTTP_PROXY;
    process.env.HTTP_PROXY = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      expect(proxyConfigured()).toBe(true);
      const { plain } = clients(`${server.url}/v1`);
      expect((await plain.post("sys/ok", { a: 1 })).data).toEqual({ via: "proxy" });
      expect(proxied).toEqual([`POST ${server.url}/v1/sys/ok`]);
      expect(seen).toHaveLength(0);
    } finally {
      if (saved === undefined) delete process.env.HTTP_PROXY;
      else process.env.HTTP_PROXY = saved;
      proxy.closeAllConnections();
      proxy.close();
    }
    expect(proxyConfigured({})).toBe(false);
  });
});
