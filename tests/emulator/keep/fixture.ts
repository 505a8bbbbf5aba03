/**
 * Shared fixture of the secrets-service emulator tests: one emulator per test file, and raw HTTP
 * calls through node's fetch so the tests see exactly what the emulator sends.
 */
import { KeepEmulator, KeepEmulatorOptions, startKeepEmulator } from "../../../emulator/keep";

export interface CallOptions {
  /** Token sent as X-Keep-Token; null sends none. */
  token?: string | null;
  body?: unknown;
  /** Sent as is, without a Content-Type. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

let current: KeepEmulator | undefined;

/** The emulator of the running test file. */
export function keep(): KeepEmulator {
  if (!current) throw new Error("useKeepEmulator() was not called in this test file");
  return current;
}

/** Starts one emulator for the file and resets its faults, log and header switch before each test. */
export function useKeepEmulator(options: KeepEmulatorOptions = {}): void {
  beforeAll(async () => {
    current = await startKeepEmulator({ port: 0, ...options });
  });
  afterAll(async () => {
    await current?.close();
    current = undefined;
  });
  beforeEach(() => {
    keep().faults.clear();
    keep().log.clear();
    keep().requireRequestHeader = false;
  });
}

/** One HTTP request to `emulator` (the file's emulator by default), with the root token unless told. */
export async function call(method: string, path: string, options: CallOptions = {}, emulator: KeepEmulator = keep()): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? emulator.rootToken : options.token;
  if (token !== null) headers["X-Keep-Token"] = token;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  const response = await fetch(`${emulator.url}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text, headers: response.headers };
}

/** Asserts an error answer: the status, `{ errors: [strings] }` and exactly `application/json`. */
export function expectErrors(result: CallResult, status: number): string[] {
  expect(result.status).toBe(status);
  expect(result.body).toEqual({ errors: expect.any(Array) });
  expect(result.headers.get("content-type")).toBe("application/json");
  for (const message of result.body.errors) expect(typeof message).toBe("string");
  return result.body.errors;
}

/** The envelope every engine and system answer carries around `data`. */
export function expectEnvelope(body: any, mountType: string): void {
  expect(body).toEqual(
    expect.objectContaining({
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      lease_id: "",
      renewable: false,
      wrap_info: null,
      warnings: null,
      auth: null,
      mount_type: mountType,
    }),
  );
}

export const encode = (text: string) => Buffer.from(text, "utf8").toString("base64");
