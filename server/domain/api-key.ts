// API key format (SPEC §2): `mk_` + 32 random bytes in base62 (43 chars) + 6-char base62 CRC32 of that part.
import { crc32 } from 'node:zlib';
import { createHash } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LEN = 43; // ceil(256 / log2(62))
const CHECK_LEN = 6; // 62^6 > 2^32
export const API_KEY_LENGTH = 3 + RANDOM_LEN + CHECK_LEN;
export const API_KEY_PREFIX_LENGTH = 12;
const SHAPE = new RegExp(`^mk_[0-9A-Za-z]{${RANDOM_LEN + CHECK_LEN}}$`);

function base62(value: bigint, width: number): string {
  let out = '';
  let v = value;
  while (v > 0n) {
    out = ALPHABET[Number(v % 62n)] + out;
    v /= 62n;
  }
  return out.padStart(width, '0');
}

function checksum(randomPart: string): string {
  return base62(BigInt(crc32(randomPart)), CHECK_LEN);
}

/** Builds a key from 32 random bytes (the caller supplies the randomness). */
export function formatApiKey(random: Uint8Array): string {
  if (random.length !== 32) throw new Error('an API key needs exactly 32 random bytes');
  const randomPart = base62(BigInt(`0x${Buffer.from(random).toString('hex')}`), RANDOM_LEN);
  return `mk_${randomPart}${checksum(randomPart)}`;
}

/** Shape and checksum only: rejects a mistyped or made-up key before any database read. */
export function isWellFormedApiKey(key: string): boolean {
  if (!SHAPE.test(key)) return false;
  const randomPart = key.slice(3, 3 + RANDOM_LEN);
  return checksum(randomPart) === key.slice(3 + RANDOM_LEN);
}

export function apiKeyPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX_LENGTH);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
