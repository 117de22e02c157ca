// Which database errors are "not now" (503 unavailable, SPEC §7) and which are bugs (500): the faults a
// test cannot inflict on a shared server (a full disk) are told apart by their SQLSTATE, as PostgreSQL sends it.
import { describe, expect, it } from 'vitest';
import { isTransientDatabaseError } from '../../server/persistence/transient.js';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isTransientDatabaseError', () => {
  it.each([
    ['53100', 'disk_full'],
    ['53200', 'out_of_memory'],
    ['53300', 'too_many_connections'],
    ['57P01', 'admin_shutdown'],
    ['57P02', 'crash_shutdown'],
    ['57P03', 'cannot_connect_now'],
    ['08006', 'connection_failure'],
    ['08001', 'sqlclient_unable_to_establish_sqlconnection'],
    ['55P03', 'lock_not_available'],
    ['57014', 'query_canceled (statement_timeout)'],
    ['25006', 'read_only_sql_transaction'],
    ['40001', 'serialization_failure'],
    ['40P01', 'deadlock_detected'],
    ['58030', 'io_error'],
  ])('%s (%s) is transient', (code) => {
    expect(isTransientDatabaseError(pgError(code))).toBe(true);
  });

  it.each([
    ['23505', 'unique_violation'],
    ['23503', 'foreign_key_violation'],
    ['42P01', 'undefined_table'],
    ['42601', 'syntax_error'],
    ['22P02', 'invalid_text_representation'],
    ['P0001', 'raise_exception'],
    ['XX000', 'internal_error'],
    ['58P01', 'undefined_file'],
  ])('%s (%s) is a bug, not an outage', (code) => {
    expect(isTransientDatabaseError(pgError(code))).toBe(false);
  });

  it('socket errors, a connection cut mid-query and a full pool are transient; what wraps them too', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']) expect(isTransientDatabaseError(pgError(code)), code).toBe(true);
    expect(isTransientDatabaseError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(
      isTransientDatabaseError(Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' })),
    ).toBe(true);
    // the same wait in the hot path's queue for a kept connection (statements.ts), known by its name alone
    expect(isTransientDatabaseError(Object.assign(new Error('every pool connection in use'), { name: 'ConnectionWaitTimeout' }))).toBe(true);
    expect(isTransientDatabaseError(new Error('outer', { cause: pgError('57P01') }))).toBe(true);
    expect(isTransientDatabaseError(new AggregateError([pgError('ECONNREFUSED')], 'connect failed'))).toBe(true);
    expect(isTransientDatabaseError({ originalError: pgError('53300') })).toBe(true);
  });

  it('bugs and non-errors are not', () => {
    expect(isTransientDatabaseError(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
    expect(isTransientDatabaseError(new Error('injected failure'))).toBe(false);
    expect(isTransientDatabaseError(pgError('ENOENT'))).toBe(false);
    expect(isTransientDatabaseError(null)).toBe(false);
    expect(isTransientDatabaseError('Connection terminated')).toBe(false);
    expect(isTransientDatabaseError({ code: 53300 })).toBe(false);
    // a cycle of causes ends
    const a: { cause?: unknown } = {};
    a.cause = a;
    expect(isTransientDatabaseError(a)).toBe(false);
  });
});
