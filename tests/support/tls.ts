/** A throwaway CA and a server certificate for 127.0.0.1, for TLS tests. */
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as http from "node:http";
import * as https from "node:https";
import { AddressInfo } from "node:net";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const ALG = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

async function pkcs8Pem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString("base64").replace(/(.{64})/g, "$1\n").trim()}\n-----END PRIVATE KEY-----\n`;
}

export async function makeTlsFixture(): Promise<{ caPem: string; certPem: string; keyPem: string }> {
  const now = new Date(Date.now() - 60_000);
  const later = new Date(Date.now() + 3_600_000);
  const caKeys = (await webcrypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: "CN=keepstack test CA",
    notBefore: now,
    notAfter: later,
    keys: caKeys,
    signingAlgorithm: ALG,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  const leafKeys = (await webcrypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: "02",
    subject: "CN=127.0.0.1",
    issuer: ca.subject,
    notBefore: now,
    notAfter: later,
    publicKey: leafKeys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: ALG,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: "ip", value: "127.0.0.1" }])],
  });
  return { caPem: ca.toString("pem"), certPem: leaf.toString("pem"), keyPem: await pkcs8Pem(leafKeys.privateKey) };
}

export interface TlsServer {
  /** `https://127.0.0.1:<port>` */
  address: string;
  /** The CA that signed the server's certificate. */
  caPem: string;
  close(): Promise<void>;
}

/** An HTTPS server on loopback whose certificate only the returned CA trusts. */
export async function startTlsServer(handler: http.RequestListener): Promise<TlsServer> {
  const tls = await makeTlsFixture();
  const server = https.createServer({ cert: tls.certPem, key: tls.keyPem }, handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    address: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caPem: tls.caPem,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
