/**
 * The calls of `sys/rekey/*`, shared by the rekey operations and the functions: each sends one row of
 * the secrets service's contract (`provider/contracts/keep.ts`), which holds the answers' shapes and
 * which writes are never sent twice on their own.
 */
import { rekey, RekeyBackup, RekeyCompletion, RekeyInit, RekeyStatus, RekeyVerification } from "../../../provider/contracts/keep";
import { ApiError } from "../../../provider/errors";
import type { KeepClient } from "../../../provider/keep-client";

export type StatusAnswer = RekeyStatus;
export type CompletionAnswer = RekeyCompletion;
export type VerificationAnswer = RekeyVerification;
export type BackupAnswer = RekeyBackup;
export type InitParameters = RekeyInit;

export const readStatus = async (client: KeepClient): Promise<StatusAnswer> => (await client.send(rekey.status)).body;

export const startAttempt = async (client: KeepClient, parameters: InitParameters): Promise<StatusAnswer> =>
  (await client.send(rekey.start, { body: parameters })).body;

export async function cancelAttempt(client: KeepClient): Promise<void> {
  await client.send(rekey.cancel);
}

/** One current share; the status while the threshold is not reached, else the completion. */
export const submitShare = async (client: KeepClient, key: string, nonce: string): Promise<StatusAnswer | CompletionAnswer> =>
  (await client.send(rekey.submitShare, { body: { key, nonce } })).body;

/** The verification in progress; the service answers 400 when there is none. */
export const readVerification = async (client: KeepClient): Promise<VerificationAnswer> => (await client.send(rekey.verification)).body;

/** Whether a failed verification read means that no verification is in progress. */
export const noVerification = (e: unknown): e is ApiError => e instanceof ApiError && (e.status === 400 || e.status === 404);

/** Starts verification over: progress 0 and a new nonce. */
export const restartVerification = async (client: KeepClient): Promise<VerificationAnswer> => (await client.send(rekey.restartVerification)).body;

/** One new share; the verification status while not done, else `{ nonce, complete }`. */
export const submitNewShare = async (client: KeepClient, key: string, nonce: string): Promise<VerificationAnswer | { nonce: string; complete: true }> =>
  (await client.send(rekey.submitNewShare, { body: { key, nonce } })).body;

/** The stored backup, or undefined when none is stored. */
export const readBackup = async (client: KeepClient): Promise<BackupAnswer | undefined> => (await client.send(rekey.backup))?.body;

export async function deleteBackup(client: KeepClient): Promise<void> {
  await client.send(rekey.deleteBackup);
}
