/**
 * The calls of `sys/rekey/*` and the shapes of their answers, shared by the rekey operations and the
 * functions. Answers are bare objects (the backup may come inside `data` as well: both are read).
 *
 * Writes that move the attempt on (`init`, `update`, `verify`) are never sent twice on their own:
 * a repeated share is refused, a repeated init meets its own attempt. They are retried only when the
 * service cannot have acted (a 429, a refused connection).
 */
import { z } from "zod";
import { ApiError, checkedAnswer } from "../../../provider/errors";
import type { KeepClient, KeepRequestOptions } from "../../../provider/keep-client";
import { answerFields } from "../../../provider/keep-object";

const ONCE: KeepRequestOptions = { retry: { retryWhenMayHaveActed: false } };

const fingerprints = z.array(z.string()).nullish().transform((f) => f ?? []);

/** `GET sys/rekey/init`, and the answer of `init` and of an `update` that is not the last. */
export const statusAnswer = z.object({
  started: z.boolean(),
  nonce: z.string(),
  t: z.number().int(),
  n: z.number().int(),
  progress: z.number().int(),
  required: z.number().int(),
  pgp_fingerprints: fingerprints,
  backup: z.boolean().optional().default(false),
  verification_required: z.boolean().optional().default(false),
});
export type StatusAnswer = z.output<typeof statusAnswer>;

/** The answer of the `update` that reaches the threshold. */
export const completionAnswer = z.object({
  complete: z.literal(true),
  keys: z.array(z.string()).nullish().transform((k) => k ?? []),
  keys_base64: z.array(z.string()).nullish().transform((k) => k ?? []),
  nonce: z.string(),
  pgp_fingerprints: fingerprints,
  backup: z.boolean().optional().default(false),
  verification_required: z.boolean().optional().default(false),
  verification_nonce: z.string().optional(),
});
export type CompletionAnswer = z.output<typeof completionAnswer>;

/** `GET`/`DELETE sys/rekey/verify`, and a `verify` that is not the last. */
export const verificationAnswer = z.object({ nonce: z.string(), t: z.number().int(), n: z.number().int(), progress: z.number().int() });
export type VerificationAnswer = z.output<typeof verificationAnswer>;

const verifiedAnswer = z.object({ nonce: z.string(), complete: z.literal(true) });

export const backupAnswer = z.object({
  nonce: z.string(),
  keys: z.record(z.string(), z.array(z.string())),
  keys_base64: z.record(z.string(), z.array(z.string())).optional(),
});
export type BackupAnswer = z.output<typeof backupAnswer>;

function parse<T extends z.ZodType>(schema: T, body: unknown, method: string, path: string): z.output<T> {
  return checkedAnswer(schema, answerFields(body) ?? body, { service: "keep", method, path: `/v1/${path}` });
}

export async function readStatus(client: KeepClient): Promise<StatusAnswer> {
  return parse(statusAnswer, await client.request("GET", "sys/rekey/init"), "GET", "sys/rekey/init");
}

export interface InitParameters {
  secret_shares: number;
  secret_threshold: number;
  pgp_keys?: string[];
  backup: boolean;
  require_verification: boolean;
}

export async function startAttempt(client: KeepClient, parameters: InitParameters): Promise<StatusAnswer> {
  return parse(statusAnswer, await client.request("PUT", "sys/rekey/init", parameters, ONCE), "PUT", "sys/rekey/init");
}

export async function cancelAttempt(client: KeepClient): Promise<void> {
  await client.delete("sys/rekey/init");
}

/** One current share; the status while the threshold is not reached, else the completion. */
export async function submitShare(client: KeepClient, key: string, nonce: string): Promise<StatusAnswer | CompletionAnswer> {
  const body = await client.request("PUT", "sys/rekey/update", { key, nonce }, ONCE);
  const fields = answerFields(body) ?? body;
  return (fields as { complete?: unknown })?.complete === true
    ? parse(completionAnswer, body, "PUT", "sys/rekey/update")
    : parse(statusAnswer, body, "PUT", "sys/rekey/update");
}

/** The verification in progress; the service answers 400 when there is none. */
export async function readVerification(client: KeepClient): Promise<VerificationAnswer> {
  return parse(verificationAnswer, await client.request("GET", "sys/rekey/verify"), "GET", "sys/rekey/verify");
}

/** Whether a failed verification read means that no verification is in progress. */
export const noVerification = (e: unknown): e is ApiError => e instanceof ApiError && (e.status === 400 || e.status === 404);

/** Starts verification over: progress 0 and a new nonce. */
export async function restartVerification(client: KeepClient): Promise<VerificationAnswer> {
  return parse(verificationAnswer, await client.request("DELETE", "sys/rekey/verify", undefined, ONCE), "DELETE", "sys/rekey/verify");
}

/** One new share; the verification status while not done, else `{ nonce, complete }`. */
export async function submitNewShare(client: KeepClient, key: string, nonce: string): Promise<VerificationAnswer | { nonce: string; complete: true }> {
  const body = await client.request("PUT", "sys/rekey/verify", { key, nonce }, ONCE);
  const fields = answerFields(body) ?? body;
  return (fields as { complete?: unknown })?.complete === true
    ? parse(verifiedAnswer, body, "PUT", "sys/rekey/verify")
    : parse(verificationAnswer, body, "PUT", "sys/rekey/verify");
}

/** The stored backup, or undefined when none is stored. */
export async function readBackup(client: KeepClient): Promise<BackupAnswer | undefined> {
  const body = await client.read("sys/rekey/backup");
  return body === undefined ? undefined : parse(backupAnswer, body, "GET", "sys/rekey/backup");
}

export async function deleteBackup(client: KeepClient): Promise<void> {
  await client.delete("sys/rekey/backup");
}
