// Password hashing: argon2id with the library's defaults (64 MiB, 3 passes, 4 lanes), well above SPEC's floor,
// or at that floor when the service is configured so (`PASSWORD_HASHING=floor`: the test suite).
import argon2 from 'argon2';
import { randomBytes } from 'node:crypto';
import type { PasswordHashing } from '../config.js';

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

const PARAMETERS: Record<PasswordHashing, { memoryCost?: number; timeCost?: number; parallelism?: number }> = {
  standard: {},
  // SPEC §1: at least 19 MiB and 2 iterations (OWASP's first argon2id configuration)
  floor: { memoryCost: 19_456, timeCost: 2, parallelism: 1 },
};

export function hashPassword(password: string, hashing: PasswordHashing): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id, ...PARAMETERS[hashing] });
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

const dummies = new Map<PasswordHashing, Promise<string>>();
/** A real hash, of the cost new hashes get, to verify against when the user is unknown: every refusal costs the same time. */
export function dummyHash(hashing: PasswordHashing): Promise<string> {
  let dummy = dummies.get(hashing);
  if (!dummy) dummies.set(hashing, (dummy = hashPassword(randomBytes(24).toString('base64'), hashing)));
  return dummy;
}

/** A generated password for the first admin: 24 base64url characters (144 bits). */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
