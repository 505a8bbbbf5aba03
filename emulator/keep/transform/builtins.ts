/**
 * The transform engine's built-in alphabets, templates and store: present on every mount under
 * `builtin/...`, readable, never written or deleted.
 */
import type { StoredAlphabet, StoredTemplate } from "./model";

const DIGITS = "0123456789";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const UPPER = LOWER.toUpperCase();

export const BUILTIN_PREFIX = "builtin/";

export const BUILTIN_ALPHABETS: Readonly<Record<string, StoredAlphabet>> = {
  "builtin/numeric": { alphabet: DIGITS },
  "builtin/alphalower": { alphabet: LOWER },
  "builtin/alphaupper": { alphabet: UPPER },
  "builtin/alphanumericlower": { alphabet: DIGITS + LOWER },
  "builtin/alphanumericupper": { alphabet: DIGITS + UPPER },
  "builtin/alphanumeric": { alphabet: DIGITS + LOWER + UPPER },
};

const template = (pattern: string): StoredTemplate => ({ type: "regex", pattern, alphabet: "builtin/numeric", encode_format: "", decode_formats: {} });

export const BUILTIN_TEMPLATES: Readonly<Record<string, StoredTemplate>> = {
  "builtin/creditcardnumber": template("(\\d{4})[- ]?(\\d{4})[- ]?(\\d{4})[- ]?(\\d{4})"),
  "builtin/socialsecuritynumber": template("(\\d{3})[- ]?(\\d{2})[- ]?(\\d{4})"),
};

/** The store every mount has: tokens kept by the service itself. */
export const INTERNAL_STORE = "builtin/internal";
