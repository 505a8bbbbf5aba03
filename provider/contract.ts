/**
 * A service's wire contract: each endpoint one row, declared in one line plus its schemas, as in
 * `endpoint("GET partition/{name}", { answer: partition, notFound: "absent" })`. A row says the
 * method, the path template (relative to the service's base path; `{x}` one segment, `{x*}` several),
 * the payload as the service reads it, the answer as it sends it (checked, and mapped to our names
 * where the schema transforms it) and what a 404 means there. `send` is the one way a row goes out:
 * the path from its template, the answer checked, a 404 read by the row; the service's client
 * brings the rest (authentication, envelopes, queries, retries) as the `transport`.
 */
import { z } from "zod";
import { checkedAnswer, unlessNotFound } from "./errors";
import type { RetryOverride } from "./http";
import { route } from "./paths";

export type Method = "GET" | "PUT" | "POST" | "PATCH" | "DELETE";

/** What a 404 means at an endpoint: a failure like any other, or the answer "not there". */
export type NotFound = "error" | "absent";

/** The parameter names of a path template: `{mount*}/roles/{name}` has `mount` and `name`. */
export type PathParamNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? (Name extends `${infer Several}*` ? Several : Name) | PathParamNames<Rest>
  : never;

/**
 * The values a row's path needs, one per name of its template: a missing or misspelt one does not
 * compile. A row whose template is known only at run time (`string`) takes any names.
 */
export type PathParams<Path extends string> = string extends Path ? Record<string, unknown> : { [K in PathParamNames<Path>]: string | number };

export interface Endpoint<Body = unknown, Answer = unknown, Missing extends NotFound = NotFound, Path extends string = string> {
  readonly method: Method;
  /** Path template under the service's base path. */
  readonly path: Path;
  /** The payload in the service's names; a body that does not fit is refused before it is sent. */
  readonly body?: z.ZodType<unknown, Body>;
  /** The answer in the service's names, or mapped to ours by the schema's transform. */
  readonly answer: z.ZodType<Answer>;
  readonly notFound: Missing;
  /**
   * A write that moves a process on (a share submitted, an attempt started): never sent again when
   * an attempt may have acted, since the repetition would be refused or act twice.
   */
  readonly once: boolean;
  /** Query parameters every request of the row carries (a LIST is `GET ?list=true`). */
  readonly query?: Readonly<Record<string, string>>;
}

const noAnswer = z.unknown().transform(() => undefined);

/**
 * An answer its caller reads field by field, as it is, with the fields `shape` declares checked
 * (each that does not fit is named) and typed, as the shape reads them; undefined when the service
 * answered without an object. The fields the shape leaves out are kept for the caller's field table.
 */
export function fieldsOf<Fields extends object = {}>(shape?: z.ZodType<Fields>): z.ZodType<(Record<string, unknown> & Fields) | undefined> {
  return z.unknown().transform((body, ctx) => {
    if (body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
    if (!shape) return body as Record<string, unknown> & Fields;
    const checked = shape.safeParse(body);
    if (!checked.success) {
      for (const issue of checked.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
      return z.NEVER;
    }
    return { ...body, ...checked.data } as Record<string, unknown> & Fields;
  }) as unknown as z.ZodType<(Record<string, unknown> & Fields) | undefined>;
}

/**
 * A value read by the schema `choose` picks for it by a field it has (`complete`, `wrap_info`,
 * `batchInput`), where a union could only say that no branch fits: each issue of that schema is
 * reported as it is, so the field (or the unknown key) is named.
 */
export function readBy<T>(choose: (fields: Record<string, unknown>) => z.ZodType<T>) {
  return z.unknown().transform((value, ctx): T => {
    const fields = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    const result = choose(fields).safeParse(value);
    if (result.success) return result.data;
    for (const issue of result.error.issues) ctx.addIssue(issue as never);
    return z.NEVER;
  });
}

/** A list in an answer, which services send as `null` or leave out when it is empty: read as `[]`. */
export const listOf = <Item extends z.ZodType>(item: Item) => z.array(item).nullish().transform((list): z.output<Item>[] => list ?? []);

/** One row: `"<METHOD> <path template>"`, then the schemas. Without `answer` the body is not read. */
export function endpoint<Path extends string, Body = never, Answer = void, Missing extends NotFound = "error">(
  line: `${Method} ${Path}`,
  parts: { body?: z.ZodType<unknown, Body>; answer?: z.ZodType<Answer>; notFound?: Missing; once?: boolean; query?: Record<string, string> } = {},
): Endpoint<Body, Answer, Missing, Path> {
  const [method, path] = line.split(" ") as [Method, Path];
  return {
    method,
    path,
    body: parts.body,
    answer: (parts.answer ?? noAnswer) as z.ZodType<Answer>,
    notFound: (parts.notFound ?? "error") as Missing,
    once: parts.once ?? false,
    query: parts.query,
  };
}

/** The retries of a row's request: a row sent once never repeats an attempt that may have acted. */
export function retryOf(row: Endpoint, retry: RetryOverride | undefined): RetryOverride | undefined {
  if (!row.once || retry === false) return retry;
  return { ...retry, retryWhenMayHaveActed: false };
}

/** What one request of a row carries besides its body. */
export interface Call<Body, Options, Path extends string = string> {
  /** Values of the path template's names. */
  params?: PathParams<Path>;
  body?: Body;
  /** The client's own options for this request (namespace, query, blocking, retry). */
  options?: Options;
}

/** The service client's part: send a request as its profile wants, give back the body (and the rest it reads). */
export type Transport<Options, Extra> = (
  row: Endpoint,
  path: string,
  body: unknown,
  options: Options | undefined,
) => Promise<{ body: unknown; extra: Extra }>;

export type Answered<Answer, Missing extends NotFound, Extra> = Missing extends "absent"
  ? ({ body: Answer } & Extra) | undefined
  : { body: Answer } & Extra;

/**
 * Sends one row: its path rendered from `params`, its body checked by its schema, its answer checked
 * (a `ResponseShapeError` naming each field that is not what the contract says) and a 404 read as
 * the row says.
 */
export async function send<Body, Answer, Missing extends NotFound, Options, Extra, Path extends string>(
  service: string,
  basePath: string,
  transport: Transport<Options, Extra>,
  row: Endpoint<Body, Answer, Missing, Path>,
  call: Call<Body, Options, Path> = {},
): Promise<Answered<Answer, Missing, Extra>> {
  const path = route(row.path, call.params ?? {});
  const shown = `${service}: ${row.method} ${basePath}/${path}`;
  let body: unknown = call.body;
  if (row.body && call.body !== undefined) {
    const result = row.body.safeParse(call.body);
    if (!result.success) throw new Error(`${shown}: the payload does not fit the contract: ${result.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`).join("; ")}`);
    body = result.data;
  }
  const sent = transport(row as unknown as Endpoint, path, body, call.options);
  const answer = row.notFound === "absent" ? await unlessNotFound(sent) : await sent;
  if (answer === undefined) return undefined as Answered<Answer, Missing, Extra>;
  const checked = checkedAnswer(row.answer, answer.body, { service, method: row.method, path: `${basePath}/${path}` });
  return { ...answer.extra, body: checked } as Answered<Answer, Missing, Extra>;
}
