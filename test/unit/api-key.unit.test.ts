import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { API_KEY_LENGTH, apiKeyPrefix, formatApiKey, hashApiKey, isWellFormedApiKey } from '../../server/domain/api-key.js';

describe('API key format', () => {
  it('is mk_ + 43 base62 random characters + a 6-character checksum', () => {
    for (let i = 0; i < 200; i++) {
      const key = formatApiKey(randomBytes(32));
      expect(key).toMatch(/^mk_[0-9A-Za-z]{49}$/);
      expect(key).toHaveLength(API_KEY_LENGTH);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it('encodes all-zero and all-one bytes at full width', () => {
    expect(formatApiKey(new Uint8Array(32)).slice(3, 46)).toBe('0'.repeat(43));
    expect(isWellFormedApiKey(formatApiKey(new Uint8Array(32).fill(255)))).toBe(true);
  });

  it('rejects a key with one character changed, a wrong prefix or a wrong length', () => {
    const key = formatApiKey(randomBytes(32));
    const flipped = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    expect(isWellFormedApiKey(flipped)).toBe(false);
    expect(isWellFormedApiKey(`xx_${key.slice(3)}`)).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`${key}0`)).toBe(false);
  });

  it('shows a 12-character prefix and stores a SHA-256 hex digest', () => {
    const key = formatApiKey(randomBytes(32));
    expect(apiKeyPrefix(key)).toBe(key.slice(0, 12));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key.slice(3, 20));
  });
});
