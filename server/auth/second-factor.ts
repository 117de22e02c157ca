// The second factor's secrets (SPEC §16): TOTP (RFC 6238, 30-second steps, 6 digits, ±1 step, each step
// accepted once), the secret encrypted at rest, and single-use recovery codes kept as salted hashes.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';

export const TOTP_PERIOD_SECONDS = 30;
export const RECOVERY_CODE_COUNT = 10;

const keys = new Map<string, Buffer>();

/** AES-256 key derived (HKDF-SHA256) from the server's secret, for this purpose only. */
function secretKey(serverSecret: string): Buffer {
  let key = keys.get(serverSecret);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', serverSecret, 'market-service', 'second-factor secret v1', 32));
    keys.set(serverSecret, key);
  }
  return key;
}

/**
 * `v1.<iv>.<tag>.<ciphertext>` (base64url), AES-256-GCM with the user id as associated data, so a
 * ciphertext copied onto another user's row does not decrypt.
 */
export function encryptTotpSecret(serverSecret: string, userId: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secretKey(serverSecret), iv);
  cipher.setAAD(Buffer.from(userId));
  const ct = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

/** The secret, or null when the stored value was not made with this server's secret (or was altered). */
export function decryptTotpSecret(serverSecret: string, userId: string, stored: string): string | null {
  const [v, iv, tag, ct] = stored.split('.');
  if (v !== 'v1' || !iv || !tag || ct === undefined) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', secretKey(serverSecret), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(userId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/** The `otpauth://` URI authenticator apps read, and the same as an SVG QR code. */
export async function enrolmentUri(issuer: string, label: string, secret: string): Promise<{ otpauthUri: string; qrCodeSvg: string }> {
  const otpauthUri = generateURI({ issuer, label, secret, period: TOTP_PERIOD_SECONDS, digits: 6, algorithm: 'sha1' });
  const qrCodeSvg = await QRCode.toString(otpauthUri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { otpauthUri, qrCodeSvg };
}

export const isTotpShaped = (code: string) => /^\d{6}$/.test(code);

/**
 * The time step a 6-digit `code` matches within ±1 step of `now`, above `afterTimeStep` (a step already used
 * is refused: each code works once), or null.
 */
export async function matchTotp(secret: string, code: string, now: Date, afterTimeStep: number | null): Promise<number | null> {
  if (!isTotpShaped(code)) return null;
  const result = await verify({
    secret,
    token: code,
    epoch: Math.floor(now.getTime() / 1000),
    period: TOTP_PERIOD_SECONDS,
    epochTolerance: TOTP_PERIOD_SECONDS,
    ...(afterTimeStep !== null ? { afterTimeStep } : {}),
  });
  return result.valid && 'timeStep' in result ? result.timeStep : null;
}

// Recovery codes: 10 characters of a 32-letter alphabet without look-alikes (50 bits), shown as xxxxx-xxxxx.
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz023456789';

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(32)]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** As typed: case, spaces and dashes do not matter. */
export const normaliseRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');

export const isRecoveryCodeShaped = (code: string) => /^[a-z0-9]{10}$/.test(normaliseRecoveryCode(code));

/** `<salt>$<sha256(salt ‖ code)>`, a random 128-bit salt per code (ASVS 2.6.2 for look-up secrets). */
export function hashRecoveryCode(code: string): string {
  const salt = randomBytes(16).toString('base64url');
  return `${salt}$${createHash('sha256').update(salt).update(normaliseRecoveryCode(code)).digest('base64url')}`;
}

export function recoveryCodeMatches(stored: string, code: string): boolean {
  const [salt, hash] = stored.split('$');
  if (!salt || !hash) return false;
  const candidate = createHash('sha256').update(salt).update(normaliseRecoveryCode(code)).digest();
  const expected = Buffer.from(hash, 'base64url');
  return expected.length === candidate.length && timingSafeEqual(expected, candidate);
}

/** mfaTokens are random; only their SHA-256 is stored. */
export function newMfaToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashMfaToken(token) };
}
export const hashMfaToken = (token: string) => createHash('sha256').update(token).digest('hex');
