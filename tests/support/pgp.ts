/** PGP key pairs of the rekey tests' share holders, and the decryption of a share encrypted to one. */
import * as openpgp from "openpgp";

export interface PgpPair {
  /** The public key, binary and base64, as the rekey's `pgpKeys` take it. */
  publicKey: string;
  privateKey: openpgp.PrivateKey;
  fingerprint: string;
}

export async function pgpPair(name: string): Promise<PgpPair> {
  const generated = await openpgp.generateKey({ type: "ecc", curve: "curve25519Legacy", userIDs: [{ name }], format: "object" });
  return { publicKey: Buffer.from(generated.publicKey.write()).toString("base64"), privateKey: generated.privateKey, fingerprint: generated.publicKey.getFingerprint() };
}

/** A share the service encrypted to `pair`'s key (base64), as hex. */
export async function decryptShare(base64: string, pair: Pick<PgpPair, "privateKey">): Promise<string> {
  const message = await openpgp.readMessage({ binaryMessage: new Uint8Array(Buffer.from(base64, "base64")) });
  const { data } = await openpgp.decrypt({ message, decryptionKeys: pair.privateKey, format: "binary" });
  return Buffer.from(data as Uint8Array).toString("hex");
}
