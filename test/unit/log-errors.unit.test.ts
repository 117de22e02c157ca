// The log form of an error (server/logger.ts): a failed statement's text and bound values never reach a
// log line or the CLI's stderr, while the driver's reason, its SQLSTATE and the stack frames stay.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, errorText, safeError } from '../../server/logger.js';

const HASH = 'f1d5117b106038fe6ed661651e09a27498797b56560a58f70fe389f54d028675';

/** As knex and MikroORM throw it: the statement with its values inlined, ` - `, then PostgreSQL's words. */
function driverError(pgMessage: string, members: Record<string, unknown> = {}) {
  const err = Object.assign(new Error(`select k.id from api_keys k\n where k.key_hash = '${HASH}' and k.revoked_at is null - ${pgMessage}`), {
    code: '42P01',
    severity: 'ERROR',
    routine: 'parserOpenTable',
    ...members,
  });
  err.name = 'TableNotFoundException';
  return err;
}

describe('safeError', () => {
  it('withholds the statement, keeps the reason, the code and the frames', () => {
    const safe = safeError(driverError('relation "api_keys" does not exist')) as Record<string, string>;
    expect(JSON.stringify(safe)).not.toContain(HASH);
    expect(safe.message).toBe('(statement withheld) - relation "api_keys" does not exist');
    expect(safe).toMatchObject({ type: 'Error', code: '42P01', routine: 'parserOpenTable' });
    expect(safe.stack).toMatch(/^TableNotFoundException: \(statement withheld\)[^\n]*\n\s+at /);
  });

  it('drops the members that carry values (detail, bindings, sql, where) and masks quoted values, not identifiers', () => {
    const err = driverError('invalid input syntax for type uuid: "secret-value"', {
      code: '22P02',
      detail: `Key (key_hash)=(${HASH}) already exists.`,
      sql: `select '${HASH}'`,
      bindings: [HASH],
      where: `SQL statement "${HASH}"`,
    });
    const safe = safeError(err) as Record<string, unknown>;
    const text = JSON.stringify(safe);
    expect(text).not.toContain(HASH);
    expect(text).not.toContain('secret-value');
    expect(safe.message).toBe('(statement withheld) - invalid input syntax for type uuid: "[withheld]"');
    expect(Object.keys(safe)).not.toEqual(expect.arrayContaining(['detail']));
  });

  it('follows causes, and leaves errors that are not about a statement as they are', () => {
    const wrapped = new Error('could not authenticate', { cause: driverError('canceling statement due to statement timeout') });
    const safe = safeError(wrapped) as { message: string; cause: { message: string } };
    expect(safe.message).toBe('could not authenticate');
    expect(safe.cause.message).toBe('(statement withheld) - canceling statement due to statement timeout');
    expect(JSON.stringify(safe)).not.toContain(HASH);
    expect(safeError('just text')).toBe('just text');
  });

  it('is what the logger and the CLI print', () => {
    let line = '';
    const logger = createLogger(
      'info',
      new Writable({
        write(c, _e, done) {
          line += c.toString();
          done();
        },
      }),
    );
    logger.error({ err: driverError('relation "api_keys" does not exist') }, 'failed');
    expect(line).toContain('(statement withheld)');
    expect(line).not.toContain(HASH);
    expect(errorText(driverError('x'))).not.toContain(HASH);
  });
});
