/**
 * `sys/rekey/*` of the secrets-service emulator over raw HTTP, row by row of the spec's rekey
 * attempt table, with real key shares: the master key rebuilt from shares with Shamir's scheme, new
 * shares PGP-encrypted and decrypted here with the private keys, the backup, verification.
 */
import { decryptShare, PgpPair, pgpPair } from "../support/pgp";
import { call, expectErrors, keep, useKeepEmulator } from "./keep/fixture";

useKeepEmulator();

const current = () => keep().seal.shares();

beforeEach(async () => {
  await keep().seal.initialize();
});

async function startRekey(body: Record<string, unknown>) {
  const init = await call("PUT", "/v1/sys/rekey/init", { body });
  expect(init.status).toBe(200);
  return init.body as { nonce: string; required: number; started: boolean };
}

/** Submits shares one by one; returns every answer. */
async function submit(path: "update" | "verify", nonce: string, keys: string[]) {
  const answers = [];
  for (const key of keys) answers.push(await call("PUT", `/v1/sys/rekey/${path}`, { body: { key, nonce } }));
  return answers;
}

describe("the seal", () => {
  test("five shares of 33 bytes, any three rebuild the master key, two do not", async () => {
    const { keys, keysBase64, threshold } = current();
    expect(threshold).toBe(3);
    expect(keys).toHaveLength(5);
    for (const [i, hex] of keys.entries()) {
      expect(hex).toMatch(/^[0-9a-f]{66}$/);
      expect(Buffer.from(keysBase64[i], "base64").toString("hex")).toBe(hex);
    }
    const master = keep().seal.masterKey();
    expect(master).toHaveLength(32);
    expect((await keep().seal.combine([keys[4], keys[0], keys[2]])).equals(master)).toBe(true);
    expect((await keep().seal.combine([keys[1], keys[3]])).equals(master)).toBe(false);
  });
});

describe("status and init", () => {
  test("no attempt: not started, the current threshold required", async () => {
    const status = await call("GET", "/v1/sys/rekey/init");
    expect(status.status).toBe(200);
    expect(status.body).toEqual({
      nonce: "",
      started: false,
      t: 0,
      n: 0,
      progress: 0,
      required: 3,
      pgp_fingerprints: null,
      backup: false,
      verification_required: false,
    });
  });

  test("init starts an attempt with a nonce; only one attempt at a time; DELETE init cancels it", async () => {
    const started = await startRekey({ secret_shares: 4, secret_threshold: 2 });
    expect(started).toEqual(expect.objectContaining({ started: true, t: 2, n: 4, progress: 0, required: 3, nonce: expect.stringMatching(/^[0-9a-f-]{36}$/) }));
    expect(expectErrors(await call("PUT", "/v1/sys/rekey/init", { body: { secret_shares: 4, secret_threshold: 2 } }), 400)).toEqual(["rekey already in progress"]);
    expect((await call("GET", "/v1/sys/rekey/init")).body.nonce).toBe(started.nonce);

    expect((await call("DELETE", "/v1/sys/rekey/init")).status).toBe(204);
    expect((await call("GET", "/v1/sys/rekey/init")).body.started).toBe(false);
    // A new attempt gets a new nonce.
    expect((await startRekey({ secret_shares: 4, secret_threshold: 2 })).nonce).not.toBe(started.nonce);
  });

  test.each([
    [{ secret_threshold: 2 }, "'secret_shares' parameter not supplied or empty"],
    [{ secret_shares: 2, secret_threshold: 3 }, "invalid seal configuration: threshold cannot be larger than shares"],
    [{ secret_shares: 3, secret_threshold: 1 }, "invalid seal configuration: threshold must be greater than one for multiple shares"],
    [{ secret_shares: 256, secret_threshold: 2 }, "invalid seal configuration: shares must be at most 255"],
    [{ secret_shares: 2, secret_threshold: 2, pgp_keys: ["AAAA"] }, "count mismatch between number of provided PGP keys and number of shares"],
    [{ secret_shares: 2, secret_threshold: 2, backup: true }, "cannot request a backup of the new keys without providing PGP keys"],
  ])("invalid parameters %j are refused: %s", async (body, message) => {
    expect(expectErrors(await call("PUT", "/v1/sys/rekey/init", { body }), 400)).toEqual([message]);
    expect((await call("GET", "/v1/sys/rekey/init")).body.started).toBe(false);
  });

  test("a PGP key that does not parse is refused by position", async () => {
    const [message] = expectErrors(await call("PUT", "/v1/sys/rekey/init", { body: { secret_shares: 1, secret_threshold: 1, pgp_keys: ["bm90IGEga2V5"] } }), 400);
    expect(message).toMatch(/^error parsing PGP key 1: /);
  });

  test("rekey is a root-namespace operation", async () => {
    keep().addNamespace("team-a");
    expectErrors(await call("GET", "/v1/sys/rekey/init", { headers: { "X-Keep-Namespace": "team-a" } }), 404);
  });
});

describe("update", () => {
  test("each share with the nonce raises progress; at the threshold the master key is rotated and new shares returned", async () => {
    const before = keep().seal.masterKey();
    const old = current().keys;
    const { nonce } = await startRekey({ secret_shares: 4, secret_threshold: 2 });

    const [first, second] = await submit("update", nonce, [old[1], old[3]]);
    expect(first.body).toEqual(expect.objectContaining({ started: true, nonce, progress: 1, required: 3 }));
    expect(second.body.progress).toBe(2);
    expect(keep().seal.masterKey().equals(before)).toBe(true);
    const [third] = await submit("update", nonce, [old[0]]);

    expect(third.status).toBe(200);
    expect(third.body).toEqual({
      complete: true,
      keys: expect.any(Array),
      keys_base64: expect.any(Array),
      nonce,
      pgp_fingerprints: null,
      backup: false,
      verification_required: false,
    });
    const fresh: string[] = third.body.keys;
    expect(fresh).toHaveLength(4);
    expect(third.body.keys_base64).toEqual(fresh.map((hex) => Buffer.from(hex, "hex").toString("base64")));
    const after = keep().seal.masterKey();
    expect(after.equals(before)).toBe(false);
    expect((await keep().seal.combine([fresh[2], fresh[0]])).equals(after)).toBe(true);
    expect(current()).toEqual({ keys: fresh, keysBase64: third.body.keys_base64, threshold: 2 });

    // No attempt any more, and the old shares no longer rebuild the master key.
    expect((await call("GET", "/v1/sys/rekey/init")).body).toEqual(expect.objectContaining({ started: false, required: 2 }));
    const again = await startRekey({ secret_shares: 3, secret_threshold: 2 });
    const answers = await submit("update", again.nonce, [old[0], old[1]]);
    expect(expectErrors(answers[1], 400)).toEqual(["master key verification failed: cipher: message authentication failed"]);
  });

  test("base64 shares are accepted as well as hex", async () => {
    const { keysBase64 } = current();
    const { nonce } = await startRekey({ secret_shares: 2, secret_threshold: 2 });
    const answers = await submit("update", nonce, keysBase64.slice(0, 3));
    expect(answers[2].body.complete).toBe(true);
  });

  test("the nonce is required and checked; a share is taken once; nothing goes without an attempt", async () => {
    const old = current().keys;
    expect(expectErrors(await call("PUT", "/v1/sys/rekey/update", { body: { key: old[0], nonce: "x" } }), 400)).toEqual(["no rekey in progress"]);
    const { nonce } = await startRekey({ secret_shares: 2, secret_threshold: 2 });
    expect(expectErrors(await call("PUT", "/v1/sys/rekey/update", { body: { key: old[0] } }), 400)).toEqual([
      "'nonce' must be specified in request body as JSON",
    ]);
    expect(expectErrors(await call("PUT", "/v1/sys/rekey/update", { body: { nonce } }), 400)).toEqual(["'key' must be specified in request body as JSON"]);
    expect(expectErrors(await call("PUT", "/v1/sys/rekey/update", { body: { key: old[0], nonce: "other" } }), 400)).toEqual([
      `incorrect nonce supplied; nonce for this rekey operation is ${nonce}`,
    ]);
    expect(expectErrors(await call("PUT", "/v1/sys/rekey/update", { body: { key: "zz", nonce } }), 400)).toEqual(["'key' must be a valid hex or base64 string"]);
    await submit("update", nonce, [old[0]]);
    expect(expectErrors(await call("PUT", "/v1/sys/rekey/update", { body: { key: old[0], nonce } }), 400)).toEqual([
      "given key has already been provided during this generation operation",
    ]);
    expect((await call("GET", "/v1/sys/rekey/init")).body.progress).toBe(1);
  });

  test("a wrong share fails at the threshold: progress starts over, the attempt stays, the master key and shares stay", async () => {
    const before = keep().seal.masterKey();
    const old = current().keys;
    const { nonce } = await startRekey({ secret_shares: 2, secret_threshold: 2 });
    // A share of the right form from another split.
    const stranger = Buffer.from(old[2], "hex");
    stranger[5] ^= 0xff;
    const answers = await submit("update", nonce, [old[0], old[1], stranger.toString("hex")]);
    expect(expectErrors(answers[2], 400)).toEqual(["master key verification failed: cipher: message authentication failed"]);
    expect((await call("GET", "/v1/sys/rekey/init")).body).toEqual(expect.objectContaining({ started: true, nonce, progress: 0 }));
    expect(keep().seal.masterKey().equals(before)).toBe(true);
    expect(current().keys).toEqual(old);

    expect((await call("DELETE", "/v1/sys/rekey/init")).status).toBe(204);
    const retry = await startRekey({ secret_shares: 2, secret_threshold: 2 });
    expect((await submit("update", retry.nonce, old.slice(2, 5)))[2].body.complete).toBe(true);
  });
});

describe("verification", () => {
  test("new shares come with a verification nonce; the rotation waits for a threshold of them through verify", async () => {
    const before = keep().seal.masterKey();
    const old = current().keys;
    const { nonce } = await startRekey({ secret_shares: 3, secret_threshold: 2, require_verification: true });
    const done = (await submit("update", nonce, old.slice(0, 3)))[2];
    expect(done.body).toEqual(
      expect.objectContaining({ complete: true, nonce, verification_required: true, verification_nonce: expect.stringMatching(/^[0-9a-f-]{36}$/) }),
    );
    const fresh: string[] = done.body.keys;
    const verificationNonce: string = done.body.verification_nonce;
    expect(keep().seal.masterKey().equals(before)).toBe(true);
    expect(current().keys).toEqual(old);

    // The attempt is in verification: update refuses and names the verification nonce.
    expect(expectErrors(await call("PUT", "/v1/sys/rekey/update", { body: { key: old[3], nonce } }), 400)).toEqual([
      `rekey operation already finished; verification must be performed; nonce for the verification operation is ${verificationNonce}`,
    ]);
    expect((await call("GET", "/v1/sys/rekey/verify")).body).toEqual({ started: true, nonce: verificationNonce, t: 2, n: 3, progress: 0 });
    expect(expectErrors(await call("PUT", "/v1/sys/rekey/verify", { body: { key: fresh[0], nonce } }), 400)).toEqual([
      `incorrect nonce supplied; nonce for this verify operation is ${verificationNonce}`,
    ]);

    // DELETE verify: progress 0 and a new nonce; the attempt stays.
    const first = await call("PUT", "/v1/sys/rekey/verify", { body: { key: fresh[0], nonce: verificationNonce } });
    expect(first.body).toEqual({ started: true, nonce: verificationNonce, t: 2, n: 3, progress: 1 });
    const reset = await call("DELETE", "/v1/sys/rekey/verify");
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ started: true, nonce: expect.any(String), t: 2, n: 3, progress: 0 });
    expect(reset.body.nonce).not.toBe(verificationNonce);

    const answers = await submit("verify", reset.body.nonce, [fresh[2], fresh[1]]);
    expect(answers[1].body).toEqual({ nonce: reset.body.nonce, complete: true });
    const after = keep().seal.masterKey();
    expect(after.equals(before)).toBe(false);
    expect((await keep().seal.combine([fresh[0], fresh[2]])).equals(after)).toBe(true);
    expect(current().keys).toEqual(fresh);
    expect((await call("GET", "/v1/sys/rekey/init")).body.started).toBe(false);
    expectErrors(await call("GET", "/v1/sys/rekey/verify"), 400);
  });

  test("wrong new shares fail verification and leave the master key; DELETE init cancels and the current shares stay valid", async () => {
    const before = keep().seal.masterKey();
    const old = current().keys;
    const { nonce } = await startRekey({ secret_shares: 2, secret_threshold: 2, require_verification: true });
    const done = (await submit("update", nonce, old.slice(0, 3)))[2];
    const answers = await submit("verify", done.body.verification_nonce, [done.body.keys[0], old[0].slice(0, 64) + done.body.keys[1].slice(64)]);
    expect(expectErrors(answers[1], 400)[0]).toMatch(/verification failed|failed to compute master key/);
    expect((await call("GET", "/v1/sys/rekey/verify")).body.progress).toBe(0);
    expect(keep().seal.masterKey().equals(before)).toBe(true);

    expect((await call("DELETE", "/v1/sys/rekey/init")).status).toBe(204);
    expectErrors(await call("GET", "/v1/sys/rekey/verify"), 400);
    expect(current().keys).toEqual(old);
    const retry = await startRekey({ secret_shares: 2, secret_threshold: 2 });
    expect((await submit("update", retry.nonce, old.slice(1, 4)))[2].body.complete).toBe(true);
  });
});

describe("PGP-encrypted shares and the backup", () => {
  let pairs: PgpPair[];
  beforeAll(async () => {
    pairs = await Promise.all(["ann", "bob", "cy"].map(pgpPair));
  });

  test("each new share is encrypted to the key in its position; the decrypted shares rebuild the new master key; backup GET and DELETE", async () => {
    const old = current().keys;
    const started = await call("PUT", "/v1/sys/rekey/init", {
      body: { secret_shares: 3, secret_threshold: 2, pgp_keys: pairs.map((p) => p.publicKey), backup: true },
    });
    expect(started.body).toEqual(expect.objectContaining({ pgp_fingerprints: pairs.map((p) => p.fingerprint), backup: true }));
    const done = (await submit("update", started.body.nonce, old.slice(0, 3)))[2];
    expect(done.body).toEqual(expect.objectContaining({ complete: true, pgp_fingerprints: pairs.map((p) => p.fingerprint), backup: true }));

    const plain = await Promise.all((done.body.keys_base64 as string[]).map((b64, i) => decryptShare(b64, pairs[i])));
    for (const share of plain) expect(share).toMatch(/^[0-9a-f]{66}$/);
    // Encrypted to its own key only: another holder's private key does not open it.
    await expect(decryptShare(done.body.keys_base64[0], pairs[1])).rejects.toThrow();
    expect((await keep().seal.combine([plain[0], plain[2]])).equals(keep().seal.masterKey())).toBe(true);
    expect(current().keys).toEqual(plain);

    const backup = await call("GET", "/v1/sys/rekey/backup");
    expect(backup.status).toBe(200);
    const expected = Object.fromEntries(pairs.map((p, i) => [p.fingerprint, [done.body.keys[i]]]));
    expect(backup.body.nonce).toBe(started.body.nonce);
    expect(backup.body.keys).toEqual(expected);
    expect(backup.body.data.keys).toEqual(expected);

    expect((await call("DELETE", "/v1/sys/rekey/backup")).status).toBe(204);
    expectErrors(await call("GET", "/v1/sys/rekey/backup"), 404);
  });

  test("without backup nothing is stored", async () => {
    const old = current().keys;
    const { nonce } = await startRekey({ secret_shares: 3, secret_threshold: 2, pgp_keys: pairs.map((p) => p.publicKey) });
    expect((await submit("update", nonce, old.slice(0, 3)))[2].body.complete).toBe(true);
    expectErrors(await call("GET", "/v1/sys/rekey/backup"), 404);
  });
});

describe("one share, and seals that store keys", () => {
  test("one share is the master key itself, and a 1-of-1 seal rekeys to more shares", async () => {
    await keep().seal.initialize({ shares: 1, threshold: 1 });
    const [only] = current().keys;
    expect(Buffer.from(only, "hex").equals(keep().seal.masterKey())).toBe(true);
    const { nonce, required } = await startRekey({ secret_shares: 3, secret_threshold: 2 });
    expect(required).toBe(1);
    const [done] = await submit("update", nonce, [only]);
    expect(done.body.keys).toHaveLength(3);
    expect((await keep().seal.combine(done.body.keys.slice(1))).equals(keep().seal.masterKey())).toBe(true);
    expect(Buffer.from(only, "hex").equals(keep().seal.masterKey())).toBe(false);
  });

  test("a stored-keys seal: the recovery key authorises a 1-of-1 rekey that returns no shares", async () => {
    await keep().seal.initialize({ storedKeys: true });
    const before = keep().seal.masterKey();
    const recovery = current();
    expect(recovery.keys).toHaveLength(1);
    expect(expectErrors(await call("PUT", "/v1/sys/rekey/init", { body: { secret_shares: 3, secret_threshold: 2 } }), 400)).toEqual([
      "secret shares and secret threshold must be 1 when the seal stores keys",
    ]);
    const { nonce } = await startRekey({ secret_shares: 1, secret_threshold: 1 });
    const [done] = await submit("update", nonce, recovery.keys);
    expect(done.body).toEqual(expect.objectContaining({ complete: true, keys: [], keys_base64: [] }));
    expect(keep().seal.masterKey().equals(before)).toBe(false);
    // The recovery key stays.
    expect(current()).toEqual(recovery);
  });
});
