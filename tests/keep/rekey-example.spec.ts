/** examples/rekey, run in its three stages as a program through the harness against the emulator. */
import * as path from "node:path";
import * as openpgp from "openpgp";
import { Engine, summarize } from "../../harness";
import { KeepEmulator, startKeepEmulator } from "../../emulator/keep";
import { keepConfig } from "../support/keep-stack";

const exampleDir = path.join(__dirname, "..", "..", "examples", "rekey");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const example = require(path.join(exampleDir, "index.ts")) as () => Promise<Record<string, unknown>>;

describe("examples/rekey", () => {
  let keep: KeepEmulator;
  let engine: Engine;
  let holders: { publicKey: string; privateKey: openpgp.PrivateKey }[];
  beforeAll(async () => {
    keep = await startKeepEmulator();
    holders = await Promise.all(
      ["ann", "bob", "cy", "dee"].map(async (name) => {
        const pair = await openpgp.generateKey({ type: "ecc", curve: "curve25519Legacy", userIDs: [{ name }], format: "object" });
        return { publicKey: Buffer.from(pair.publicKey.write()).toString("base64"), privateKey: pair.privateKey };
      }),
    );
    engine = new Engine({
      project: "keepstack-rekey",
      cwd: exampleDir,
      config: {},
      secretConfig: ["keep:token", "rekey:unsealKeys", "rekey:newKeys"],
    });
  });
  afterAll(async () => {
    await engine.close();
    await keep.close();
  });

  const decrypt = async (base64: string, privateKey: openpgp.PrivateKey) => {
    const message = await openpgp.readMessage({ binaryMessage: new Uint8Array(Buffer.from(base64, "base64")) });
    const { data } = await openpgp.decrypt({ message, decryptionKeys: privateKey, format: "binary" });
    return Buffer.from(data as Uint8Array).toString("hex");
  };

  test("encrypted shares waiting for verification; verified by the holders' shares; backup deleted; no share in state", async () => {
    const old = keep.seal.shares().keys;
    const before = keep.seal.masterKey();
    const stage1 = {
      ...keepConfig(keep),
      "rekey:pgpKeys": JSON.stringify(holders.map((h) => h.publicKey)),
      "rekey:unsealKeys": JSON.stringify(old.slice(0, 3)),
    };
    await engine.setConfig(stage1);
    expect(summarize((await engine.preview(example)).steps)).toEqual({ create: 1 });
    expect(keep.log.count).toBe(0);

    const first = await engine.up(example);
    expect(summarize(first.steps)).toEqual({ create: 1 });
    expect(keep.seal.masterKey().equals(before)).toBe(true);
    const encrypted = first.outputs.encryptedShares as string[];
    expect(encrypted).toHaveLength(4);
    expect(keep.seal.backup()?.nonce).toEqual(expect.any(String));

    // Three holders decrypt their shares and give them back.
    const decrypted = await Promise.all(encrypted.slice(1).map((b64, i) => decrypt(b64, holders[i + 1].privateKey)));
    await engine.setConfig({ ...stage1, "rekey:newKeys": decrypted.join("\n") });
    const second = await engine.up(example);
    expect(summarize(second.steps)).toEqual({ same: 1, create: 1 });
    expect(second.outputs.rotated).toBe(true);
    expect(keep.seal.masterKey().equals(before)).toBe(false);
    expect((await keep.seal.combine(decrypted)).equals(keep.seal.masterKey())).toBe(true);

    await engine.setConfig({ ...stage1, "rekey:newKeys": decrypted.join("\n"), "rekey:sharesReceived": "true" });
    const third = await engine.up(example);
    expect(summarize(third.steps)).toEqual({ same: 2, create: 1 });
    expect(third.outputs.backupDeleted).toBe(true);
    expect(keep.seal.backup()).toBeUndefined();

    const state = JSON.stringify(engine.exportState());
    for (const share of [...old, ...decrypted]) expect(state).not.toContain(share);

    expect(summarize((await engine.destroy()).steps)).toEqual({ delete: 3 });
    // Destroy undoes nothing: the new shares stay the cluster's.
    expect((await keep.seal.combine(decrypted)).equals(keep.seal.masterKey())).toBe(true);
  });
});
