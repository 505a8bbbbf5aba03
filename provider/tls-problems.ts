/**
 * A certificate the TLS handshake refused, told in words, with the settings that fix it: OpenSSL's
 * codes (`DEPTH_ZERO_SELF_SIGNED_CERT`) say little to someone who has never met them.
 */
import { ServiceConfig, settingLabel } from "./config";

/** What the code says is wrong with the server's certificate, by OpenSSL's (and Node's) code. */
const PROBLEMS: Readonly<Record<string, string>> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's certificate is self-signed, and it is not among the trusted certificates",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's certificate chain ends in a self-signed CA that is not trusted",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate was signed by a CA that is not trusted (or the server does not send its intermediate certificates)",
  UNABLE_TO_GET_ISSUER_CERT: "the CA that issued the server's certificate is not trusted",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the CA that issued the server's certificate is not trusted",
  CERT_UNTRUSTED: "the server's certificate is not trusted",
  CERT_REJECTED: "the server's certificate is refused for this purpose",
  INVALID_CA: "a CA certificate in the server's chain is not valid as a CA",
  INVALID_PURPOSE: "the server's certificate is not meant for a TLS server",
  CERT_SIGNATURE_FAILURE: "the signature of the server's certificate is not valid",
  UNABLE_TO_DECRYPT_CERT_SIGNATURE: "the signature of the server's certificate cannot be read",
  CERT_CHAIN_TOO_LONG: "the server's certificate chain is longer than its CA allows",
  PATH_LENGTH_EXCEEDED: "the server's certificate chain is longer than its CA allows",
  CERT_HAS_EXPIRED: "the server's certificate has expired",
  CERT_NOT_YET_VALID: "the server's certificate is not valid yet (or this machine's clock is wrong)",
  CERT_REVOKED: "the server's certificate has been revoked",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's certificate does not name the host of the configured address",
  HOSTNAME_MISMATCH: "the server's certificate does not name the host of the configured address",
};

/** Problems no trusted CA can cure: only the server (or the address) can. */
const NOT_A_TRUST_PROBLEM = new Set([
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_REVOKED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "HOSTNAME_MISMATCH",
  "INVALID_PURPOSE",
  "CERT_REJECTED",
]);

/** Whether a failure's code is a refusal of the server's certificate (the request never left). */
export function isCertificateRefusal(code: string | undefined): code is string {
  return code !== undefined && Object.prototype.hasOwnProperty.call(PROBLEMS, code);
}

export interface CertificateProblem {
  /** What is wrong, in words. */
  reason: string;
  /** What to do, naming the settings (`keep:caCert (or KEEP_CACERT)`). */
  advice: string;
}

/** The problem a failure's code names, or undefined when the code is no certificate refusal. */
export function certificateProblemOf(config: Pick<ServiceConfig, "service" | "cluster" | "caCert"> & Partial<Pick<ServiceConfig, "names">>, code: string | undefined): CertificateProblem | undefined {
  if (!isCertificateRefusal(code)) return undefined;
  const label = (key: string) => settingLabel(config.service, key, config.cluster, config.names);
  const skip = `or, only if an unverified connection is acceptable, set ${label("skipTlsVerify")} to true`;
  const untrusted = !NOT_A_TRUST_PROBLEM.has(code);
  const reason = untrusted && config.caCert ? `${PROBLEMS[code]}: the CA certificates of ${label("caCert")} did not sign it` : PROBLEMS[code];
  let advice: string;
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID" || code === "HOSTNAME_MISMATCH") {
    advice = `use in ${label("address")} a host name the certificate names (a CA in ${label("caCert")} does not change the names), ${skip}`;
  } else if (untrusted) {
    advice = `trust the CA that signed the server's certificate: set ${label("caCert")} to its PEM text or to a PEM file, ${skip}`;
  } else {
    advice = `the server's certificate must be replaced (a CA in ${label("caCert")} cannot make it valid), ${skip}`;
  }
  return { reason, advice };
}

/**
 * A TLS/scheme mismatch: an `https://` address on a port that speaks plain HTTP (OpenSSL reads the
 * HTTP answer as a malformed record: EPROTO, "wrong version number"), or an `http://` address on a
 * TLS port (the HTTP parser meets a TLS record).
 */
export function schemeMismatchOf(config: Pick<ServiceConfig, "service" | "cluster" | "address"> & Partial<Pick<ServiceConfig, "names">>, failure: { code?: string; message?: string }): CertificateProblem | undefined {
  const label = settingLabel(config.service, "address", config.cluster, config.names);
  const text = `${failure.code ?? ""} ${failure.message ?? ""}`;
  if (config.address.startsWith("https:") && /EPROTO|wrong version number|packet length too long|record layer failure/i.test(text)) {
    return {
      reason: "the service answered in plain HTTP, not TLS: a TLS/scheme mismatch (the address says https://)",
      advice: `use http:// in ${label}, or the port where the service serves TLS`,
    };
  }
  if (config.address.startsWith("http:") && /HPE_INVALID_CONSTANT|Parse Error|HPE_INVALID_VERSION/i.test(text)) {
    return {
      reason: "the service answered with TLS, not plain HTTP: a TLS/scheme mismatch (the address says http://)",
      advice: `use https:// in ${label}, or the port where the service serves plain HTTP`,
    };
  }
  return undefined;
}
