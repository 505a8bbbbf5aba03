/**
 * keep.Rekey, keep.RekeyVerify, keep.RekeyBackupDeletion and the rekey functions through the real
 * provider host against the emulator's real key shares: the new shares (decrypted with the test's
 * own PGP private keys when encrypted) rebuild the emulator's new master key, the old ones no
 * longer do, and the requests are exactly the ones the rekey needs.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { decryptShare, PgpPair, pgpPair } from "../support/pgp";
import * as pulumi from "@pulumi/pulumi";
import { keep } from "pulumi-keepstack";
import { EngineError, summarize } from "../../harness";
import { createContext } from "../../provider/context";
import { KeepStack, keepConfig, startKeepStack } from "../support/keep-stack";
import { definedOutputs } from "../support/outputs";

describe("keep.Rekey", () => {
  let stack: KeepStack;
  let pairs: PgpPair[];
  let dir: string;
  beforeAll(async () => {
    stack = await startKeepStack();
    pairs = await Promise.all(["ann", "bob", "cy"].map(pgpPair));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "rekey-"));
  });
  afterAll(async () => {
    await stack.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await stack.keep.seal.initialize();
    stack.keep.log.clear();
  });
  afterEach(async () => {
    await stack.engine.destroy();
  });

  const seal = () => stack.keep.seal;
  const rekeyLines = () => stack.keep.log.lines().filter((l) => l.includes("/sys/rekey/"));
  const rebuildsMasterKey = async (shares: string[]) => (await seal().combine(shares)).equals(seal().masterKey());
  const functionContext = () => {
    const config = keepConfig(stack.keep);
    return createContext((key) => config[key]);
  };
  const errorOf = async (run: Promise<unknown>) => {
    const error = (await run.catch((e) => e)) as EngineError;
    expect(error).toBeInstanceOf(EngineError);
    return error.message;
  };

  test("preview plans the run and sends no request", async () => {
    const result = await stack.engine.preview(() => {
      new keep.Rekey("rekey", { secretShares: 3, secretThreshold: 2, unsealKeys: pulumi.secret(seal().shares().keys), acceptSharesInState: true });
    });
    expect(summarize(result.steps)).toEqual({ create: 1 });
    expect(stack.keep.log.count).toBe(0);
  });

  test("preview refuses plain new shares unless acceptSharesInState, and parameters the service would refuse", async () => {
    const message = await errorOf(
      stack.engine.preview(() => {
        new keep.Rekey("rekey", { secretShares: 3, secretThreshold: 2, unsealKeys: ["00"] });
      }),
    );
    expect(message).toMatch(/acceptSharesInState: must be true to run this operation, accepting that the new unseal key shares are kept in this stack's state/);
    const invalid = await errorOf(
      stack.engine.preview(() => {
        new keep.Rekey("rekey", { secretShares: 3, secretThreshold: 1, pgpKeys: ["AAAA"], backup: true, unsealKeys: ["00"] });
      }),
    );
    expect(invalid).toMatch(/secretThreshold: must be at least 2 when there are several shares/);
    expect(invalid).toMatch(/pgpKeys: must hold one key per new share \(3\), not 1/);
    expect(stack.keep.log.count).toBe(0);
  });

  test("plain: 1 status read, 1 init, threshold updates, then the provider verifies the new shares itself; they rebuild the new master key, the old ones no longer do", async () => {
    const old = seal().shares().keys;
    const before = seal().masterKey();
    const result = await stack.engine.up(() => {
      const r = new keep.Rekey("rekey", { secretShares: 4, secretThreshold: 2, unsealKeys: pulumi.secret(old), acceptSharesInState: true });
      return definedOutputs({ keys: r.keys, keysBase64: r.keysBase64, complete: r.complete, encrypted: r.encryptedKeys, secret: pulumi.isSecret(r.keys) });
    });
    expect(rekeyLines()).toEqual([
      "GET /v1/sys/rekey/init",
      "PUT /v1/sys/rekey/init",
      "PUT /v1/sys/rekey/update",
      "PUT /v1/sys/rekey/update",
      "PUT /v1/sys/rekey/update",
      "GET /v1/sys/rekey/verify",
      "PUT /v1/sys/rekey/verify",
      "PUT /v1/sys/rekey/verify",
    ]);
    const keys = result.outputs.keys as string[];
    expect(keys).toHaveLength(4);
    expect(result.outputs.keysBase64).toEqual(keys.map((k) => Buffer.from(k, "hex").toString("base64")));
    expect(result.outputs).toMatchObject({ complete: true, encrypted: [], secret: true });
    expect(seal().masterKey().equals(before)).toBe(false);
    expect(await rebuildsMasterKey([keys[3], keys[1]])).toBe(true);
    expect(await rebuildsMasterKey(old.slice(0, 3))).toBe(false);
    const state = [...stack.engine.state.values()][0];
    expect(state.secretOutputs).toEqual(expect.arrayContaining(["keys", "keysBase64", "unsealKeys"]));
  });

  test("shares by reference: the state and the host's output hold no current share", async () => {
    const old = seal().shares();
    const file = path.join(dir, "shares.txt");
    fs.writeFileSync(file, `${old.keysBase64[4]}\n${old.keys[0]},${old.keys[2]}\n`);
    const result = await stack.engine.up(() => {
      new keep.Rekey("rekey", { secretShares: 3, secretThreshold: 2, unsealKeys: { fromFile: file }, acceptSharesInState: true });
    });
    expect(summarize(result.steps)).toEqual({ create: 1 });
    const exported = JSON.stringify(stack.engine.exportState());
    for (const share of [...old.keys, ...old.keysBase64]) {
      expect(exported).not.toContain(share);
      expect(JSON.stringify(result.diagnostics)).not.toContain(share);
    }
    const state = [...stack.engine.state.values()][0];
    expect(state.inputs.unsealKeys).toEqual({ fromFile: file, fingerprint: expect.stringMatching(/^scrypt\$/) });
    expect(await rebuildsMasterKey((state.outputs.keys as string[]).slice(0, 2))).toBe(true);
  });

  test("PGP: each share readable only with its holder's private key; together they rebuild the master key; the backup is read back and deleted", async () => {
    const old = seal().shares().keys;
    const result = await stack.engine.up(() => {
      const r = new keep.Rekey("rekey", { secretShares: 3, secretThreshold: 2, pgpKeys: pairs.map((p) => p.publicKey), backup: true, unsealKeys: pulumi.secret(old) });
      return definedOutputs({ keys: r.keys, encrypted: r.encryptedKeysBase64, encryptedHex: r.encryptedKeys, fingerprints: r.pgpFingerprints, backupStored: r.backupStored, nonce: r.nonce });
    });
    expect(result.outputs).toMatchObject({ keys: [], fingerprints: pairs.map((p) => p.fingerprint), backupStored: true });
    const encrypted = result.outputs.encrypted as string[];
    const plain = await Promise.all(encrypted.map((b64, i) => decryptShare(b64, pairs[i])));
    await expect(decryptShare(encrypted[0], pairs[2])).rejects.toThrow();
    expect(await rebuildsMasterKey([plain[2], plain[0]])).toBe(true);
    expect(seal().shares().keys).toEqual(plain);

    const backup = await keep.getRekeyBackup({}, functionContext());
    expect(backup).toEqual({ nonce: result.outputs.nonce, keys: Object.fromEntries(pairs.map((p, i) => [p.fingerprint, [(result.outputs.encryptedHex as string[])[i]]])) });

    // Deleting the backup is acknowledged in preview, then done once.
    expect(
      await errorOf(
        stack.engine.preview(() => {
          new keep.RekeyBackupDeletion("drop", { nonce: result.outputs.nonce as string });
        }),
      ),
    ).toMatch(/confirmSharesReceived: must be true/);
    stack.keep.log.clear();
    const dropped = await stack.engine.up(() => {
      const d = new keep.RekeyBackupDeletion("drop", { nonce: result.outputs.nonce as string, confirmSharesReceived: true });
      return { deleted: d.deleted };
    });
    expect(dropped.outputs.deleted).toBe(true);
    expect(rekeyLines()).toEqual(["GET /v1/sys/rekey/backup", "DELETE /v1/sys/rekey/backup"]);
    expect(await keep.getRekeyBackup({}, functionContext())).toBeUndefined();
  });

  test("verification with plain shares: the provider gives a threshold of the new shares back itself", async () => {
    const old = seal().shares().keys;
    const before = seal().masterKey();
    const result = await stack.engine.up(() => {
      const r = new keep.Rekey("rekey", { secretShares: 5, secretThreshold: 3, requireVerification: true, unsealKeys: pulumi.secret(old), acceptSharesInState: true });
      return definedOutputs({ keys: r.keys, complete: r.complete });
    });
    expect(rekeyLines()).toEqual([
      "GET /v1/sys/rekey/init",
      "PUT /v1/sys/rekey/init",
      ...Array(3).fill("PUT /v1/sys/rekey/update"),
      "GET /v1/sys/rekey/verify",
      ...Array(3).fill("PUT /v1/sys/rekey/verify"),
    ]);
    expect(result.outputs.complete).toBe(true);
    expect([...stack.engine.state.values()][0].outputs.verificationNonce).toBeUndefined();
    expect(seal().masterKey().equals(before)).toBe(false);
    expect(await rebuildsMasterKey((result.outputs.keys as string[]).slice(2))).toBe(true);
    expect(seal().attempt()).toBeUndefined();
  });

  test("verification with PGP: Rekey stops with the verification nonce; RekeyVerify takes the decrypted shares and the master key rotates", async () => {
    const old = seal().shares().keys;
    const before = seal().masterKey();
    const first = await stack.engine.up(() => {
      const r = new keep.Rekey("rekey", { secretShares: 3, secretThreshold: 2, pgpKeys: pairs.map((p) => p.publicKey), requireVerification: true, unsealKeys: pulumi.secret(old) });
      return { encrypted: r.encryptedKeysBase64, complete: r.complete, verificationNonce: r.verificationNonce };
    });
    expect(first.outputs.complete).toBe(false);
    const nonce = first.outputs.verificationNonce as string;
    expect(seal().attempt()).toEqual(expect.objectContaining({ verificationNonce: nonce, verificationProgress: 0 }));
    expect(seal().masterKey().equals(before)).toBe(true);

    const plain = await Promise.all((first.outputs.encrypted as string[]).map((b64, i) => decryptShare(b64, pairs[i])));
    stack.keep.log.clear();
    const second = await stack.engine.up(() => {
      const r = new keep.Rekey("rekey", { secretShares: 3, secretThreshold: 2, pgpKeys: pairs.map((p) => p.publicKey), requireVerification: true, unsealKeys: pulumi.secret(old) });
      const v = new keep.RekeyVerify("verify", { nonce: r.verificationNonce.apply((n) => n!), keys: pulumi.secret(plain.slice(1)) });
      return { complete: v.complete };
    });
    // The Rekey is unchanged (no re-run); only the verification runs.
    expect(summarize(second.steps)).toEqual({ same: 1, create: 1 });
    expect(rekeyLines()).toEqual(["GET /v1/sys/rekey/verify", "PUT /v1/sys/rekey/verify", "PUT /v1/sys/rekey/verify"]);
    expect(second.outputs.complete).toBe(true);
    expect(await rebuildsMasterKey([plain[0], plain[2]])).toBe(true);
    expect(seal().masterKey().equals(before)).toBe(false);
  });

  test("RekeyVerify whose last answer is lost: the status shows the rotation, the run succeeds and a re-run changes nothing", async () => {
    const old = seal().shares().keys;
    const before = seal().masterKey();
    const first = await stack.engine.up(() => {
      const r = new keep.Rekey("rekey", { secretShares: 3, secretThreshold: 2, pgpKeys: pairs.map((p) => p.publicKey), unsealKeys: pulumi.secret(old), requireVerification: true });
      return { encrypted: r.encryptedKeysBase64, verificationNonce: r.verificationNonce };
    });
    const plain = await Promise.all((first.outputs.encrypted as string[]).map((b64, i) => decryptShare(b64, pairs[i])));
    const program = () => {
      new keep.Rekey("rekey", { secretShares: 3, secretThreshold: 2, pgpKeys: pairs.map((p) => p.publicKey), unsealKeys: pulumi.secret(old), requireVerification: true });
      const v = new keep.RekeyVerify("verify", { nonce: first.outputs.verificationNonce as string, keys: pulumi.secret(plain.slice(0, 2)) });
      return { complete: v.complete };
    };
    stack.keep.faults.inject({ times: 1, match: /PUT \/v1\/sys\/rekey\/verify/ });
    stack.keep.faults.inject({ times: 1, match: /PUT \/v1\/sys\/rekey\/verify/, dropAfterHandling: true });
    const second = await stack.engine.up(program);
    expect(second.outputs.complete).toBe(true);
    expect(seal().masterKey().equals(before)).toBe(false);
    expect(await rebuildsMasterKey(plain.slice(1))).toBe(true);
    expect(summarize((await stack.engine.preview(program)).steps)).toEqual({ same: 2 });
  });

  test("RekeyVerify with another nonce or wrong shares fails clearly and leaves the attempt waiting", async () => {
    const before = seal().masterKey();
    const first = await stack.engine.up(() => {
      const r = new keep.Rekey("rekey", { secretShares: 3, secretThreshold: 2, pgpKeys: pairs.map((p) => p.publicKey), requireVerification: true, unsealKeys: pulumi.secret(seal().shares().keys) });
      return { encrypted: r.encryptedKeysBase64, verificationNonce: r.verificationNonce };
    });
    const nonce = first.outputs.verificationNonce as string;
    const plain = await Promise.all((first.outputs.encrypted as string[]).map((b64, i) => decryptShare(b64, pairs[i])));
    const verify = (n: string, keys: string[]) => () => {
      new keep.RekeyVerify("verify", { nonce: n, keys: pulumi.secret(keys) });
    };
    expect(await errorOf(stack.engine.up(verify("stale-nonce", plain)))).toMatch(
      new RegExp(`the verification in progress has another nonce \\(${nonce}\\)`),
    );
    const wrong = Buffer.from(plain[1], "hex");
    wrong[0] ^= 1;
    expect(await errorOf(stack.engine.up(verify(nonce, [plain[0], wrong.toString("hex")])))).toMatch(/PUT \/v1\/sys\/rekey\/verify returned 400: recovered key does not match/);
    expect(seal().attempt()).toEqual(expect.objectContaining({ verificationNonce: nonce, verificationProgress: 0 }));
    expect(seal().masterKey().equals(before)).toBe(true);
  });

  test("a wrong share fails clearly, the attempt is cancelled and the current shares stay valid", async () => {
    const old = seal().shares().keys;
    const before = seal().masterKey();
    const wrong = Buffer.from(old[2], "hex");
    wrong[3] ^= 0x5a;
    const message = await errorOf(
      stack.engine.up(() => {
        new keep.Rekey("rekey", { secretShares: 3, secretThreshold: 2, unsealKeys: pulumi.secret([old[0], old[1], wrong.toString("hex")]), acceptSharesInState: true });
      }),
    );
    expect(message).toMatch(
      /keep:Rekey "rekey-2-of-3-[0-9a-f]+": run failed: the current unseal key shares given do not rebuild the master key: keep: PUT \/v1\/sys\/rekey\/update returned 400: master key verification failed.*; the rekey attempt was cancelled: the current unseal key shares stay valid/,
    );
    expect(message).not.toContain(old[0]);
    expect(rekeyLines().slice(-2)).toEqual(["PUT /v1/sys/rekey/update", "DELETE /v1/sys/rekey/init"]);
    expect(seal().attempt()).toBeUndefined();
    expect(seal().masterKey().equals(before)).toBe(true);
    expect(await rebuildsMasterKey(old.slice(2))).toBe(true);
    expect(stack.engine.state.size).toBe(0);
  });

  test("the answer to the last share is lost: the run reads the status and says the master key was rotated, pointing at the backup", async () => {
    await seal().initialize({ shares: 1, threshold: 1 });
    const before = seal().masterKey();
    stack.keep.faults.inject({ times: 1, match: /PUT \/v1\/sys\/rekey\/update/, dropAfterHandling: true });
    const message = await errorOf(
      stack.engine.up(() => {
        new keep.Rekey("rekey", { secretShares: 3, secretThreshold: 2, pgpKeys: pairs.map((p) => p.publicKey), backup: true, unsealKeys: pulumi.secret(seal().shares().keys) });
      }),
    );
    expect(message).toMatch(/the service may have rotated the master key: no attempt is in progress any more; the PGP-encrypted new shares can be read with keep\.getRekeyBackup\(\)/);
    expect(rekeyLines()).toEqual(["GET /v1/sys/rekey/init", "PUT /v1/sys/rekey/init", "PUT /v1/sys/rekey/update", "GET /v1/sys/rekey/init"]);
    expect(seal().masterKey().equals(before)).toBe(false);
    const backup = await keep.getRekeyBackup({}, functionContext());
    const plain = await Promise.all(pairs.map((p) => decryptShare(Buffer.from(backup!.keys[p.fingerprint][0], "hex").toString("base64"), p)));
    expect(await rebuildsMasterKey(plain.slice(0, 2))).toBe(true);
  });

  test("plain shares whose answer is lost: nothing was rotated (verification holds it back), the run cancels, and a re-run with the same shares converges", async () => {
    const old = seal().shares().keys;
    const before = seal().masterKey();
    // The third share (the current threshold) completes the attempt; its answer is lost.
    stack.keep.faults.inject({ times: 2, match: /PUT \/v1\/sys\/rekey\/update/ });
    stack.keep.faults.inject({ times: 1, match: /PUT \/v1\/sys\/rekey\/update/, dropAfterHandling: true });
    const program = () => {
      const r = new keep.Rekey("rekey", { secretShares: 3, secretThreshold: 2, unsealKeys: pulumi.secret(old), acceptSharesInState: true });
      return definedOutputs({ keys: r.keys });
    };
    const message = await errorOf(stack.engine.up(program));
    expect(message).toMatch(/giving current share 3: .*; the rekey attempt was cancelled: the current unseal key shares stay valid/);
    expect(seal().masterKey().equals(before)).toBe(true);
    expect(await rebuildsMasterKey(old.slice(0, 3))).toBe(true);
    const result = await stack.engine.up(program);
    expect(seal().masterKey().equals(before)).toBe(false);
    expect(await rebuildsMasterKey((result.outputs.keys as string[]).slice(1))).toBe(true);
  });

  test("verification with plain shares whose last answer is lost: the status shows the rotation and the run keeps the new shares", async () => {
    const before = seal().masterKey();
    stack.keep.faults.inject({ times: 1, match: /PUT \/v1\/sys\/rekey\/verify/, dropAfterHandling: true });
    const result = await stack.engine.up(() => {
      const r = new keep.Rekey("rekey", { secretShares: 1, secretThreshold: 1, requireVerification: true, unsealKeys: pulumi.secret(seal().shares().keys), acceptSharesInState: true });
      return definedOutputs({ keys: r.keys, complete: r.complete });
    });
    expect(rekeyLines().slice(-2)).toEqual(["PUT /v1/sys/rekey/verify", "GET /v1/sys/rekey/init"]);
    expect(result.outputs.complete).toBe(true);
    expect(seal().masterKey().equals(before)).toBe(false);
    expect(await rebuildsMasterKey(result.outputs.keys as string[])).toBe(true);
  });

  test("too few shares fail before anything starts", async () => {
    const message = await errorOf(
      stack.engine.up(() => {
        new keep.Rekey("rekey", { secretShares: 3, secretThreshold: 2, unsealKeys: pulumi.secret(seal().shares().keys.slice(0, 2)), acceptSharesInState: true });
      }),
    );
    expect(message).toMatch(/unsealKeys holds 2 shares; the service needs 3 \(its current threshold\); nothing was started/);
    expect(rekeyLines()).toEqual(["GET /v1/sys/rekey/init"]);
  });

  test("an attempt already in progress fails the run unless cancelExisting cancels it", async () => {
    const started = await fetch(`${stack.keep.url}/v1/sys/rekey/init`, {
      method: "PUT",
      headers: { "X-Keep-Token": stack.keep.rootToken },
      body: JSON.stringify({ secret_shares: 2, secret_threshold: 2 }),
    });
    const { nonce } = (await started.json()) as { nonce: string };
    stack.keep.log.clear();
    const program = (cancelExisting: boolean) => () => {
      new keep.Rekey("rekey", { secretShares: 3, secretThreshold: 2, cancelExisting, unsealKeys: pulumi.secret(seal().shares().keys), acceptSharesInState: true });
    };
    const message = await errorOf(stack.engine.up(program(false)));
    expect(message).toMatch(new RegExp(`a rekey attempt is already in progress \\(nonce ${nonce}, 2 of 2 new shares, 0 of 3 current shares given\\).*set cancelExisting`));
    expect(rekeyLines()).toEqual(["GET /v1/sys/rekey/init"]);
    expect(seal().attempt()?.nonce).toBe(nonce);
    expect((await keep.getRekeyStatus({}, functionContext())).nonce).toBe(nonce);

    stack.keep.log.clear();
    await stack.engine.up(program(true));
    expect(rekeyLines().slice(0, 3)).toEqual(["GET /v1/sys/rekey/init", "DELETE /v1/sys/rekey/init", "PUT /v1/sys/rekey/init"]);
    expect(await rebuildsMasterKey(([...stack.engine.state.values()][0].outputs.keys as string[]).slice(0, 2))).toBe(true);
  });

  test("getRekeyStatus reads the attempt in one request", async () => {
    stack.keep.log.clear();
    expect(await keep.getRekeyStatus({}, functionContext())).toEqual({
      started: false,
      nonce: "",
      t: 0,
      n: 0,
      progress: 0,
      required: 3,
      pgpFingerprints: [],
      backup: false,
      verificationRequired: false,
    });
    expect(stack.keep.log.count).toBe(1);
  });
});
