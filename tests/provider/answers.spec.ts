/** The one check of a service's answer against its schema, and the one reading of a 404 as "not there". */
import { z } from "zod";
import { ApiError, checkedAnswer, ResponseShapeError, unlessNotFound } from "../../provider/errors";

const schema = z.object({ mode: z.enum(["primary", "secondary"]), known: z.array(z.string()) });

test("an answer of the right shape comes back parsed", () => {
  expect(checkedAnswer(schema, { mode: "primary", known: ["a"], extra: 1 }, { service: "keep", method: "GET", path: "/v1/x" })).toEqual({ mode: "primary", known: ["a"] });
});

test("a wrong answer names the request and each field, under the part of the body checked", () => {
  const wrong = () => checkedAnswer(schema, { mode: "tertiary", known: [1] }, { service: "keep", method: "GET", path: "/v1/sys/replication/status", under: "data" });
  expect(wrong).toThrow(ResponseShapeError);
  expect(wrong).toThrow(/^keep: GET \/v1\/sys\/replication\/status answered with an unexpected body: data\.mode: .+; data\.known\.0: /);
  expect(() => checkedAnswer(schema, "text", { service: "keep", method: "GET", path: "/v1/x" })).toThrow(/unexpected body: \(body\): /);
});

test("a 404 is an absent object; any other failure stays one", async () => {
  const failing = (status: number) => Promise.reject(new ApiError("keep", "GET", "/v1/x", status, []));
  await expect(unlessNotFound(failing(404))).resolves.toBeUndefined();
  await expect(unlessNotFound(failing(403))).rejects.toMatchObject({ status: 403 });
  await expect(unlessNotFound(Promise.resolve("found"))).resolves.toBe("found");
});
