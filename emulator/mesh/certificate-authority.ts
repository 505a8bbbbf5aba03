/**
 * Certificate authority of the mesh emulator: real EC P-256 certificates built with @peculiar/x509 on
 * node:crypto's webcrypto. A root is generated at start; rotation adds a new active root and keeps the old
 * one inactive. Leaf certificates carry a SPIFFE URI SAN, are signed by the active root and cached per
 * (namespace, service) until less than 10% of their lifetime is left or the roots rotate.
 */
import "reflect-metadata"; // the X.509 library needs the Reflect metadata API loaded first
import { createHash, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";
import { RaftIndex } from "./raft-index";

// The library types its provider with the DOM's Crypto, which node:crypto's webcrypto implements.
x509.cryptoProvider.set(webcrypto as unknown as ReturnType<typeof x509.cryptoProvider.get>);

const EC_KEY: webcrypto.EcKeyGenParams = { name: "ECDSA", namedCurve: "P-256" };
const SIGNING: webcrypto.EcdsaParams = { name: "ECDSA", hash: "SHA-256" };
const ROOT_LIFETIME_MS = 10 * 365 * 24 * 3_600_000;
/** Leaves are backdated a minute, as the real CA does, to tolerate clock skew. */
const LEAF_BACKDATE_MS = 60_000;
/** A cached leaf is replaced once less than this share of its lifetime is left. */
const RENEW_SHARE = 0.1;
const DATACENTER = "dc1";

export interface CaRoot {
  ID: string;
  Name: string;
  SerialNumber: number;
  SigningKeyID: string;
  ExternalTrustDomain: string;
  NotBefore: string;
  NotAfter: string;
  RootCert: string;
  /** Cross-signed intermediates are not modelled. */
  IntermediateCerts: null;
  Active: boolean;
  PrivateKeyType: "ec";
  PrivateKeyBits: 256;
  CreateIndex: number;
  ModifyIndex: number;
}

export interface CaRootsResponse {
  ActiveRootID: string;
  TrustDomain: string;
  Roots: CaRoot[];
}

export interface LeafCertificate {
  SerialNumber: string;
  CertPEM: string;
  PrivateKeyPEM: string;
  Service: string;
  ServiceURI: string;
  ValidAfter: string;
  ValidBefore: string;
  Namespace: string;
  CreateIndex: number;
  ModifyIndex: number;
}

interface RootEntry {
  view: CaRoot;
  certificate: x509.X509Certificate;
  privateKey: webcrypto.CryptoKey;
}

interface CachedLeaf {
  view: LeafCertificate;
  rootId: string;
  /** Epoch ms after which a new certificate is needed. */
  renewAt: number;
}

/** Colon-separated lowercase hex of big-endian bytes, the real service's serial and key-ID format. */
export function colonHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex").match(/../g)!.join(":");
}

/** Certificates hold whole seconds; rounding here keeps the JSON timestamps equal to the certificate's. */
function wholeSecond(epochMs: number, round: (x: number) => number): Date {
  return new Date(round(epochMs / 1000) * 1000);
}

function serialHex(serial: bigint): string {
  const hex = serial.toString(16);
  return hex.length % 2 === 0 ? hex : `0${hex}`;
}

function pem(label: string, der: ArrayBuffer): string {
  const body = Buffer.from(der).toString("base64").match(/.{1,64}/g)!.join("\n");
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
}

export function serviceUri(trustDomain: string, namespace: string, service: string): string {
  return `spiffe://${trustDomain}/ns/${namespace}/dc/${DATACENTER}/svc/${service}`;
}

export class CertificateAuthority {
  private readonly rootEntries: RootEntry[] = [];
  private readonly leaves = new Map<string, CachedLeaf>();
  private readonly pendingLeaves = new Map<string, Promise<CachedLeaf>>();
  /** One serial sequence for every certificate the cluster issues, roots included. */
  private lastSerial = 0n;
  private rootsModifyIndex = 0;

  private constructor(
    readonly trustDomain: string,
    private readonly index: RaftIndex,
    private readonly leafTtlMs: number,
    private readonly onChange?: (topic: string) => void,
  ) {}

  /** `onChange` receives ROOTS_TOPIC after a rotation and leafTopic(...) after a leaf is issued. */
  static async create(options: {
    trustDomain: string;
    index: RaftIndex;
    leafTtlMs: number;
    onChange?: (topic: string) => void;
  }): Promise<CertificateAuthority> {
    const ca = new CertificateAuthority(options.trustDomain, options.index, options.leafTtlMs, options.onChange);
    await ca.rotate();
    return ca;
  }

  /** Index of the last change to the roots; the blocking index of the roots endpoint. */
  get rootsIndex(): number {
    return this.rootsModifyIndex;
  }

  get activeRootId(): string {
    return this.activeRoot().view.ID;
  }

  roots(): CaRootsResponse {
    return {
      ActiveRootID: this.activeRootId,
      TrustDomain: this.trustDomain,
      Roots: this.rootEntries.map((r) => ({ ...r.view })),
    };
  }

  /** Adds a new active root; the previous one stays listed, inactive. Every cached leaf becomes stale. */
  async rotate(): Promise<void> {
    const keys = (await webcrypto.subtle.generateKey(EC_KEY, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
    const serial = this.nextSerial();
    const notBefore = wholeSecond(Date.now() - LEAF_BACKDATE_MS, Math.floor);
    const notAfter = wholeSecond(notBefore.getTime() + ROOT_LIFETIME_MS, Math.ceil);
    const clusterId = this.trustDomain.split(".")[0];
    const certificate = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serialHex(serial),
      name: `CN=pri-${serial.toString(16)}.mesh.ca.${clusterId.slice(0, 8)}.mesh`,
      notBefore,
      notAfter,
      keys,
      signingAlgorithm: SIGNING,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
        await x509.AuthorityKeyIdentifierExtension.create(keys.publicKey),
        new x509.SubjectAlternativeNameExtension([{ type: "url", value: `spiffe://${this.trustDomain}` }]),
      ],
    });
    const at = this.index.next();
    for (const entry of this.rootEntries) {
      if (entry.view.Active) {
        entry.view.Active = false;
        entry.view.ModifyIndex = at;
      }
    }
    const ski = certificate.getExtension(x509.SubjectKeyIdentifierExtension)!;
    this.rootEntries.push({
      certificate,
      privateKey: keys.privateKey,
      view: {
        ID: colonHex(createHash("sha256").update(Buffer.from(certificate.rawData)).digest()),
        Name: this.rootEntries.length === 0 ? "Mesh CA Primary Cert" : "Mesh CA Root Cert",
        SerialNumber: Number(serial),
        SigningKeyID: colonHex(Buffer.from(ski.keyId, "hex")),
        ExternalTrustDomain: clusterId,
        NotBefore: notBefore.toISOString(),
        NotAfter: notAfter.toISOString(),
        RootCert: certificate.toString("pem") + "\n",
        IntermediateCerts: null,
        Active: true,
        PrivateKeyType: "ec",
        PrivateKeyBits: 256,
        CreateIndex: at,
        ModifyIndex: at,
      },
    });
    this.rootsModifyIndex = at;
    this.leaves.clear();
    this.pendingLeaves.clear();
    this.onChange?.(ROOTS_TOPIC);
  }

  /** The cached leaf of (namespace, service) when still usable, else a newly issued one. */
  async leaf(namespace: string, service: string): Promise<LeafCertificate> {
    return (await this.usableLeaf(namespace, service)).view;
  }

  /** Epoch ms at which the current leaf of (namespace, service) needs replacing; undefined when none is cached. */
  leafRenewAt(namespace: string, service: string): number | undefined {
    return this.leaves.get(leafKey(namespace, service))?.renewAt;
  }

  private async usableLeaf(namespace: string, service: string): Promise<CachedLeaf> {
    const key = leafKey(namespace, service);
    const cached = this.leaves.get(key);
    if (cached && cached.rootId === this.activeRootId && Date.now() < cached.renewAt) return cached;
    // Concurrent requests for the same leaf share one issuance.
    let pending = this.pendingLeaves.get(key);
    if (!pending) {
      const issuing: Promise<CachedLeaf> = this.issueLeaf(namespace, service).finally(() => {
        if (this.pendingLeaves.get(key) === issuing) this.pendingLeaves.delete(key);
      });
      this.pendingLeaves.set(key, issuing);
      pending = issuing;
    }
    return pending;
  }

  private async issueLeaf(namespace: string, service: string): Promise<CachedLeaf> {
    const root = this.activeRoot();
    const keys = (await webcrypto.subtle.generateKey(EC_KEY, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
    const serial = this.nextSerial();
    const issuedAt = Date.now();
    const notBefore = wholeSecond(issuedAt - LEAF_BACKDATE_MS, Math.floor);
    const notAfter = wholeSecond(issuedAt + this.leafTtlMs, Math.ceil);
    const uri = serviceUri(this.trustDomain, namespace, service);
    const certificate = await x509.X509CertificateGenerator.create({
      serialNumber: serialHex(serial),
      subject: `CN=${service}`,
      issuer: root.certificate.subjectName,
      notBefore,
      notAfter,
      publicKey: keys.publicKey,
      signingKey: root.privateKey,
      signingAlgorithm: SIGNING,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.keyAgreement,
          true,
        ),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
        await x509.AuthorityKeyIdentifierExtension.create(root.certificate.publicKey),
        new x509.SubjectAlternativeNameExtension([{ type: "url", value: uri }]),
      ],
    });
    const privateKey = await webcrypto.subtle.exportKey("pkcs8", keys.privateKey);
    const at = this.index.next();
    const issued: CachedLeaf = {
      rootId: root.view.ID,
      renewAt: issuedAt + this.leafTtlMs * (1 - RENEW_SHARE),
      view: {
        SerialNumber: colonHex(Buffer.from(serialHex(serial), "hex")),
        CertPEM: certificate.toString("pem") + "\n",
        PrivateKeyPEM: pem("PRIVATE KEY", privateKey),
        Service: service,
        ServiceURI: uri,
        ValidAfter: notBefore.toISOString(),
        ValidBefore: notAfter.toISOString(),
        Namespace: namespace,
        CreateIndex: at,
        ModifyIndex: at,
      },
    };
    // A rotation during issuance makes this leaf stale at once; it is still answered, then replaced.
    this.leaves.set(leafKey(namespace, service), issued);
    this.onChange?.(leafTopic(namespace, service));
    return issued;
  }

  private activeRoot(): RootEntry {
    return this.rootEntries.find((r) => r.view.Active)!;
  }

  private nextSerial(): bigint {
    this.lastSerial += 1n;
    return this.lastSerial;
  }
}

const leafKey = (namespace: string, service: string) => `${namespace}/${service}`;

export const ROOTS_TOPIC = "roots";
export const leafTopic = (namespace: string, service: string) => `leaf:${leafKey(namespace, service)}`;
