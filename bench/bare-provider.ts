/**
 * The source of a dynamic provider that sends the requests of an ACL policy's create and delete with
 * Node's bare `http.request` on a keep-alive agent and nothing else: no checks, no retries, no
 * client. Run through the same provider host, it is the floor of what any provider of these
 * requests costs there (gRPC, protobuf and the SDK's host, plus the HTTP requests themselves), so
 * the bench can tell the package's own cost from the host's.
 */
export function bareProviderText(address: string, token: string): string {
  return `exports.handler = function () {
  const http = require("http");
  const agent = new http.Agent({ keepAlive: true });
  const send = (method, path, body) => new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers = { "X-Keep-Token": ${JSON.stringify(token)}, "Content-Type": "application/json" };
    if (data) headers["Content-Length"] = data.length;
    const request = http.request(${JSON.stringify(`${address}/v1/`)} + path, { method, agent, headers }, (response) => {
      response.resume();
      response.on("end", () => (response.statusCode < 300 ? resolve() : reject(new Error(method + " " + path + ": " + response.statusCode))));
    });
    request.on("error", reject);
    request.end(data);
  });
  return {
    check: async (olds, news) => ({ inputs: news }),
    create: async (inputs) => {
      await send("POST", "sys/policies/acl/" + inputs.name, { policy: inputs.policy });
      return { id: inputs.name, outs: inputs };
    },
    delete: async (id) => send("DELETE", "sys/policies/acl/" + id),
  };
};`;
}
