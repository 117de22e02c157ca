// Password hashing: argon2id with the library's defaults (64 MiB, 3 passes, 4 lanes), well above SPEC's floor.
import argon2 from 'argon2';
import { randomBytes } from 'node:crypto';

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | undefined;
/** A real hash to verify against when the user is unknown, so every refusal costs the same time. */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(24).toString('base64'));
  return dummy;
}

/** A generated password for the first admin: 24 base64url characters (144 bits). */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
