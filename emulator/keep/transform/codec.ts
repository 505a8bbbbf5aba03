/**
 * What encode and decode do for each transformation type: FPE is the real FF3-1 over the
 * template's alphabet, masking overwrites the captured characters, tokenization keeps random
 * tokens in a token store. Only the captured characters change; the rest of the value stays.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { KeepError, badRequest } from "../replies";
import { Ff31, Ff31Error } from "./ff3-1";
import { GoPattern, PatternSyntaxError, compileGoPattern, expandTemplate } from "./pattern";
import type { StoredTemplate, StoredTransformation } from "./model";
import type { TokenRecord } from "./token-stores";

const TWEAK_BYTES = 7;

const compiledPatterns = new Map<string, GoPattern>();

function compiled(pattern: string): GoPattern {
  let found = compiledPatterns.get(pattern);
  if (!found) {
    try {
      found = compileGoPattern(pattern);
    } catch (e) {
      if (!(e instanceof PatternSyntaxError)) throw e;
      throw badRequest(`template pattern does not compile: ${e.message}`);
    }
    compiledPatterns.set(pattern, found);
  }
  return found;
}

/** One captured group of a match: its number and where it is in the value. */
interface Piece {
  group: number;
  start: number;
  end: number;
  text: string;
}

interface Matched {
  pattern: GoPattern;
  pieces: Piece[];
}

/** The groups the pattern captures in `value`, in order, without overlaps (an inner group of a captured one is skipped). */
function match(template: StoredTemplate, value: string): Matched {
  const pattern = compiled(template.pattern);
  pattern.regex.lastIndex = 0;
  const m = pattern.regex.exec(value);
  if (!m) throw badRequest("unable to find matching expression: the value does not match the template's pattern");
  const pieces: Piece[] = [];
  let end = 0;
  for (let group = 1; group <= pattern.groups; group++) {
    const at = m.indices?.[group];
    if (!at || at[0] < end) continue;
    pieces.push({ group, start: at[0], end: at[1], text: value.slice(at[0], at[1]) });
    end = at[1];
  }
  return { pattern, pieces };
}

/** The value with each piece replaced by its new text. */
function replacePieces(value: string, pieces: readonly Piece[], texts: readonly string[]): string {
  let out = "";
  let at = 0;
  pieces.forEach((piece, i) => {
    out += value.slice(at, piece.start) + texts[i];
    at = piece.end;
  });
  return out + value.slice(at);
}

/** A format expanded with the pieces' new texts (groups that captured nothing expand to nothing). */
function formatPieces(format: string, matched: Matched, texts: readonly string[]): string {
  const byGroup = new Map(matched.pieces.map((piece, i) => [piece.group, texts[i]]));
  return expandTemplate(matched.pattern, format, (group) => byGroup.get(group));
}

/** A base64 tweak of 7 bytes, as `tweak` carries it. */
function tweakOf(text: string | undefined, why: string): Buffer {
  if (!text) throw badRequest(`a tweak is required: ${why}`);
  const bytes = Buffer.from(text, "base64");
  if (bytes.length !== TWEAK_BYTES || bytes.toString("base64").replace(/=+$/, "") !== text.replace(/=+$/, "")) {
    throw badRequest(`tweak must be ${TWEAK_BYTES} bytes, base64-encoded`);
  }
  return bytes;
}

export interface FpeResult {
  value: string;
  /** The generated tweak (base64) the caller must keep to decode. */
  tweak?: string;
}

function cipherOf(transformation: StoredTransformation, alphabet: string): Ff31 {
  try {
    return new Ff31(Buffer.from(transformation.key, "base64"), alphabet);
  } catch (e) {
    throw badRequest(`alphabet cannot be used for FPE: ${(e as Error).message}`);
  }
}

function runCipher(run: () => string): string {
  try {
    return run();
  } catch (e) {
    if (e instanceof Ff31Error) throw badRequest(`unable to transform the captured characters: ${e.message}`);
    throw e;
  }
}

/** FF3-1 over the captured characters, joined and split back; `encode_format` shapes the result. */
export function fpeEncode(transformation: StoredTransformation, template: StoredTemplate, alphabet: string, value: string, tweakText?: string): FpeResult {
  const matched = match(template, value);
  let tweak: Buffer;
  let generated: string | undefined;
  if (transformation.tweak_source === "supplied") tweak = tweakOf(tweakText, "the transformation's tweak source is supplied");
  else if (transformation.tweak_source === "generated") {
    tweak = randomBytes(TWEAK_BYTES);
    generated = tweak.toString("base64");
  } else tweak = Buffer.from(transformation.internal_tweak, "base64");
  const joined = matched.pieces.map((p) => p.text).join("");
  const encrypted = Array.from(runCipher(() => cipherOf(transformation, alphabet).encrypt(joined, tweak)));
  const texts = splitLike(encrypted, matched.pieces);
  const encoded = template.encode_format ? formatPieces(template.encode_format, matched, texts) : replacePieces(value, matched.pieces, texts);
  return generated ? { value: encoded, tweak: generated } : { value: encoded };
}

export function fpeDecode(
  transformation: StoredTransformation,
  template: StoredTemplate,
  alphabet: string,
  value: string,
  tweakText: string | undefined,
  decodeFormat: string | undefined,
): string {
  let format: string | undefined;
  if (decodeFormat !== undefined) {
    format = template.decode_formats[decodeFormat];
    if (format === undefined) throw badRequest(`decode format "${decodeFormat}" is not one of the template's decode_formats`);
  }
  const matched = match(template, value);
  const tweak =
    transformation.tweak_source === "internal"
      ? Buffer.from(transformation.internal_tweak, "base64")
      : tweakOf(tweakText, `the transformation's tweak source is ${transformation.tweak_source}`);
  const joined = matched.pieces.map((p) => p.text).join("");
  const decrypted = Array.from(runCipher(() => cipherOf(transformation, alphabet).decrypt(joined, tweak)));
  const texts = splitLike(decrypted, matched.pieces);
  return format !== undefined ? formatPieces(format, matched, texts) : replacePieces(value, matched.pieces, texts);
}

function splitLike(characters: readonly string[], pieces: readonly Piece[]): string[] {
  let at = 0;
  return pieces.map((piece) => {
    const length = Array.from(piece.text).length;
    const text = characters.slice(at, at + length).join("");
    at += length;
    return text;
  });
}

/** Every captured character becomes the masking character. */
export function mask(transformation: StoredTransformation, template: StoredTemplate, value: string): string {
  const matched = match(template, value);
  const character = Array.from(transformation.masking_character)[0] ?? "*";
  return replacePieces(value, matched.pieces, matched.pieces.map((p) => character.repeat(Array.from(p.text).length)));
}

// ---------------------------------------------------------------------------------------------
// Tokenization.

const TOKEN_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const TOKEN_LENGTH = 44;

function keyOf(transformation: StoredTransformation): Buffer {
  return Buffer.from(transformation.key, "base64");
}

export function tokenHash(transformation: StoredTransformation, token: string): string {
  return createHmac("sha256", keyOf(transformation)).update(`token\u0000${token}`).digest("hex");
}

export function valueHash(transformation: StoredTransformation, value: string): string {
  return createHmac("sha256", keyOf(transformation)).update(`value\u0000${value}`).digest("hex");
}

function newToken(): string {
  // Rejection sampling keeps every character equally likely.
  let token = "";
  while (token.length < TOKEN_LENGTH) {
    for (const byte of randomBytes(TOKEN_LENGTH * 2)) {
      if (byte < 58 * 4 && token.length < TOKEN_LENGTH) token += TOKEN_ALPHABET[byte % 58];
    }
  }
  return token;
}

function seal(transformation: StoredTransformation, value: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyOf(transformation), iv);
  const body = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64");
}

export function unseal(transformation: StoredTransformation, sealed: string): string {
  const bytes = Buffer.from(sealed, "base64");
  const decipher = createDecipheriv("aes-256-gcm", keyOf(transformation), bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8");
}

/** A new token for `value`, and the record the store keeps. */
export function tokenize(
  transformation: StoredTransformation,
  value: string,
  ttlSeconds: number,
  metadata: string,
  now: number,
): { token: string; record: TokenRecord } {
  const maxTtl = transformation.max_ttl;
  const ttl = maxTtl > 0 ? (ttlSeconds > 0 ? Math.min(ttlSeconds, maxTtl) : maxTtl) : ttlSeconds;
  const token = newToken();
  return {
    token,
    record: {
      transformationId: transformation.id,
      tokenHash: tokenHash(transformation, token),
      valueHash: valueHash(transformation, value),
      ciphertext: seal(transformation, value),
      metadata,
      expiresAt: ttl > 0 ? now + ttl * 1000 : undefined,
      createdAt: now,
    },
  };
}

export const isLive = (record: TokenRecord | undefined, now: number): record is TokenRecord =>
  record !== undefined && (record.expiresAt === undefined || record.expiresAt > now);

export const expiredOrUnknown = () => new KeepError(400, ["token not found or expired"]);
