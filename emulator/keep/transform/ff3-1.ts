/**
 * FF3-1 format-preserving encryption (NIST SP 800-38G Rev. 1, section 5.2, Algorithms 9 and 10)
 * over any alphabet of 2 to 2^16 characters, with AES (128-, 192- or 256-bit keys) and 56-bit tweaks.
 *
 * The alphabet's characters are Unicode code points; a text is a string of them, its length counted
 * in code points. Numeral strings are little-endian in the standard's NUM_radix(REV(X)) sense, so
 * every REV of the standard becomes a choice of digit order here; the byte reversals (REVB) of the
 * key, of P and of S are done on buffers, exactly as written.
 */
import { createCipheriv, createSecretKey, type KeyObject } from "node:crypto";

/** FF3-1's smallest domain: radix^minlen must reach one million. */
const DOMAIN_MIN = 1_000_000n;
/** Each half of the numeral string must fit the 96 bits P gives it. */
const HALF_LIMIT = 1n << 96n;
const MAX_RADIX = 0x10000;
const ROUNDS = 8;
const TWEAK_BYTES = 7;
const FF3_TWEAK_BYTES = 8;
const CIPHERS: Record<number, string> = { 16: "aes-128-ecb", 24: "aes-192-ecb", 32: "aes-256-ecb" };

/** A key, alphabet, text or tweak the cipher cannot take; the message says which and why. */
export class Ff31Error extends Error {
  override readonly name = "Ff31Error";
}

/** The lengths (in characters) FF3-1 accepts for a radix. */
export interface LengthBounds {
  /** Smallest length: the least n >= 2 with radix^n >= 1,000,000. */
  minLength: number;
  /** Largest length: 2 * floor(log_radix(2^96)). */
  maxLength: number;
}

/**
 * FF3-1's length bounds for a radix, computed in exact integers (floating-point logarithms round
 * the wrong way for radixes such as 8, where 8^32 is exactly 2^96).
 * @param radix number of characters in the alphabet, 2 to 65536
 */
export function lengthBounds(radix: number): LengthBounds {
  checkRadix(radix);
  const r = BigInt(radix);
  let minLength = 1;
  for (let power = r; power < DOMAIN_MIN; power *= r) minLength++;
  let half = 0;
  for (let power = r; power <= HALF_LIMIT; power *= r) half++;
  return { minLength: Math.max(minLength, 2), maxLength: 2 * half };
}

/**
 * FF3-1's tweak expansion (SP 800-38G Rev. 1, Algorithm 9 step 3): T_L = T[0..27] || 0^4 and
 * T_R = T[32..55] || T[28..31] || 0^4, returned as the 8-byte FF3 tweak T_L || T_R.
 * @param tweak the 56-bit (7-byte) FF3-1 tweak
 */
export function expandTweak(tweak: Buffer): Buffer {
  if (!Buffer.isBuffer(tweak) || tweak.length !== TWEAK_BYTES) {
    throw new Ff31Error(`tweak must be ${TWEAK_BYTES} bytes (56 bits), got ${describeBytes(tweak)}`);
  }
  return Buffer.from([tweak[0], tweak[1], tweak[2], tweak[3] & 0xf0, tweak[4], tweak[5], tweak[6], (tweak[3] & 0x0f) << 4]);
}

/** Which way the Feistel network runs. */
export type Direction = "encrypt" | "decrypt";

/**
 * The eight-round Feistel network shared by FF3 and FF3-1, on numerals (0 to radix-1) with a
 * 64-bit tweak T_L || T_R. FF3-1 is this with `expandTweak`'s output; it is exported so NIST's
 * FF3 samples (64-bit tweaks) can check the byte order too. Checks only what the network needs:
 * numerals in range, 2 <= length, and each half below 2^96.
 * @param key AES key of 16, 24 or 32 bytes, as the standard writes it (not yet byte-reversed)
 * @param radix base of the numerals, 2 to 65536
 * @param numerals the numeral string X, first numeral first
 * @param tweak64 the 8-byte tweak T_L || T_R
 * @param direction "encrypt" (Algorithm 9) or "decrypt" (Algorithm 10)
 */
export function feistel(key: Buffer, radix: number, numerals: readonly number[], tweak64: Buffer, direction: Direction): number[] {
  checkRadix(radix);
  if (!Buffer.isBuffer(tweak64) || tweak64.length !== FF3_TWEAK_BYTES) {
    throw new Ff31Error(`FF3 tweak must be ${FF3_TWEAK_BYTES} bytes, got ${describeBytes(tweak64)}`);
  }
  const r = BigInt(radix);
  const n = numerals.length;
  const u = Math.ceil(n / 2);
  if (n < 2 || r ** BigInt(u) > HALF_LIMIT) {
    throw new Ff31Error(`numeral string of length ${n} is outside what radix ${radix} allows`);
  }
  numerals.forEach((x, i) => {
    if (!Number.isInteger(x) || x < 0 || x >= radix) throw new Ff31Error(`numeral ${x} at ${i} is not in radix ${radix}`);
  });
  return runFeistel(aesKey(key), r, numerals, tweak64, direction);
}

/**
 * FF3-1 over an alphabet: encrypts a text to a text of the same length over the same alphabet.
 *
 * ```ts
 * const cards = new Ff31(key32, "0123456789");
 * const token = cards.encrypt("4000001234567899", tweak7);
 * ```
 */
export class Ff31 {
  /** Number of characters in the alphabet. */
  readonly radix: number;
  /** Shortest text accepted. */
  readonly minLength: number;
  /** Longest text accepted. */
  readonly maxLength: number;
  private readonly key: KeyObject;
  private readonly bigRadix: bigint;
  private readonly characters: readonly string[];
  private readonly numeralOf: ReadonlyMap<string, number>;

  /**
   * @param key AES key: 32 bytes for AES-256 (16 and 24 are accepted too, as NIST's vectors use them)
   * @param alphabet the characters, numeral 0 first; 2 to 65536 distinct code points, no lone surrogates
   */
  constructor(key: Buffer, alphabet: string) {
    this.key = aesKey(key);
    if (typeof alphabet !== "string") throw new Ff31Error("alphabet must be a string");
    this.characters = Array.from(alphabet);
    const numeralOf = new Map<string, number>();
    this.characters.forEach((character, numeral) => {
      if (isLoneSurrogate(character)) {
        throw new Ff31Error(`alphabet holds a lone surrogate U+${hex4(character)} at position ${numeral}`);
      }
      if (numeralOf.has(character)) {
        throw new Ff31Error(`alphabet repeats ${JSON.stringify(character)} at positions ${numeralOf.get(character)} and ${numeral}`);
      }
      numeralOf.set(character, numeral);
    });
    this.numeralOf = numeralOf;
    this.radix = this.characters.length;
    this.bigRadix = BigInt(this.radix);
    ({ minLength: this.minLength, maxLength: this.maxLength } = lengthBounds(this.radix));
  }

  /**
   * Encrypts a text (Algorithm 9).
   * @param text characters of the alphabet, minLength to maxLength of them
   * @param tweak 7 bytes (56 bits); not secret, but changes the permutation
   */
  encrypt(text: string, tweak: Buffer): string {
    return this.run(text, tweak, "encrypt");
  }

  /**
   * Decrypts a text (Algorithm 10).
   * @param text characters of the alphabet, minLength to maxLength of them
   * @param tweak the 7-byte tweak the text was encrypted with
   */
  decrypt(text: string, tweak: Buffer): string {
    return this.run(text, tweak, "decrypt");
  }

  private run(text: string, tweak: Buffer, direction: Direction): string {
    const tweak64 = expandTweak(tweak);
    const numerals = this.toNumerals(text);
    return runFeistel(this.key, this.bigRadix, numerals, tweak64, direction)
      .map((numeral) => this.characters[numeral])
      .join("");
  }

  private toNumerals(text: string): number[] {
    if (typeof text !== "string") throw new Ff31Error("text must be a string");
    const characters = Array.from(text);
    if (characters.length < this.minLength || characters.length > this.maxLength) {
      throw new Ff31Error(
        `text has ${characters.length} characters; radix ${this.radix} needs ${this.minLength} to ${this.maxLength}`,
      );
    }
    return characters.map((character, position) => {
      const numeral = this.numeralOf.get(character);
      if (numeral === undefined) throw new Ff31Error(`character ${JSON.stringify(character)} at position ${position} is not in the alphabet`);
      return numeral;
    });
  }
}

/** Algorithms 9 and 10 on validated input. */
function runFeistel(key: KeyObject, radix: bigint, numerals: readonly number[], tweak64: Buffer, direction: Direction): number[] {
  const n = numerals.length;
  const u = Math.ceil(n / 2);
  const v = n - u;
  const modulusU = radix ** BigInt(u);
  const modulusV = radix ** BigInt(v);
  const tweakLeft = tweak64.subarray(0, 4);
  const tweakRight = tweak64.subarray(4, 8);
  const aes = createCipheriv(cipherName(key), key, null).setAutoPadding(false);
  let a = numerals.slice(0, u);
  let b = numerals.slice(u);
  const rounds = direction === "encrypt" ? [0, 1, 2, 3, 4, 5, 6, 7] : [7, 6, 5, 4, 3, 2, 1, 0];
  for (const i of rounds) {
    const even = i % 2 === 0;
    const m = even ? u : v;
    const modulus = even ? modulusU : modulusV;
    const w = even ? tweakRight : tweakLeft;
    // Encryption feeds B to the round function and updates A; decryption the reverse.
    const [fed, updated] = direction === "encrypt" ? [b, a] : [a, b];
    const p = Buffer.alloc(16);
    w.copy(p, 0);
    p[3] ^= i;
    writeUint96(p, 4, littleEndianValue(fed, radix));
    const s = Buffer.from(aes.update(p.reverse())).reverse();
    const y = BigInt(`0x${s.toString("hex")}`);
    const x = littleEndianValue(updated, radix);
    const c = direction === "encrypt" ? mod(x + y, modulus) : mod(x - y, modulus);
    const next = littleEndianNumerals(c, radix, m);
    if (direction === "encrypt") [a, b] = [b, next];
    else [a, b] = [next, a];
  }
  aes.final();
  return [...a, ...b];
}

/** NUM_radix(REV(X)): the first numeral is the least significant. */
function littleEndianValue(numerals: readonly number[], radix: bigint): bigint {
  let value = 0n;
  for (let i = numerals.length - 1; i >= 0; i--) value = value * radix + BigInt(numerals[i]);
  return value;
}

/** REV(STR^m_radix(c)): m numerals, least significant first. */
function littleEndianNumerals(value: bigint, radix: bigint, m: number): number[] {
  const out = new Array<number>(m);
  for (let i = 0; i < m; i++) {
    out[i] = Number(value % radix);
    value /= radix;
  }
  return out;
}

/** [x]^12: x as 12 big-endian bytes at `offset`. */
function writeUint96(target: Buffer, offset: number, value: bigint): void {
  for (let i = 11; i >= 0; i--) {
    target[offset + i] = Number(value & 0xffn);
    value >>= 8n;
  }
}

function mod(x: bigint, m: bigint): bigint {
  const r = x % m;
  return r < 0n ? r + m : r;
}

/** CIPH_REVB(K): the standard keys AES with the key's bytes reversed. */
function aesKey(key: Buffer): KeyObject {
  if (!Buffer.isBuffer(key) || CIPHERS[key.length] === undefined) {
    throw new Ff31Error(`key must be 16, 24 or 32 bytes (AES-128, -192, -256), got ${describeBytes(key)}`);
  }
  return createSecretKey(Buffer.from(key).reverse());
}

function cipherName(key: KeyObject): string {
  return CIPHERS[key.symmetricKeySize ?? 0];
}

function checkRadix(radix: number): void {
  if (!Number.isInteger(radix) || radix < 2 || radix > MAX_RADIX) {
    throw new Ff31Error(`radix must be an integer from 2 to ${MAX_RADIX}, got ${radix}`);
  }
}

function isLoneSurrogate(character: string): boolean {
  const code = character.charCodeAt(0);
  return character.length === 1 && code >= 0xd800 && code <= 0xdfff;
}

function hex4(character: string): string {
  return character.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
}

function describeBytes(value: unknown): string {
  return Buffer.isBuffer(value) ? `${value.length} bytes` : typeof value;
}
