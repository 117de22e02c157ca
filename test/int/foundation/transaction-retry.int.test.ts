// A unit of work the store refuses with serialization_failure (40001: an append under a smaller transaction id
// than its stream's previous version, Migration20261129200000) runs again in a new transaction, at most three
// times in all (server/persistence/transaction.ts): an attempt's writes and its after-commit effects go with
// its rollback, so a retried request commits and announces exactly once; a savepoint is never retried on its
// own (only the outermost transaction gets a new id); any other error is not retried. The refusal is forced
// here by a statement that raises it, on both databases; the store's own refusal and the actor deletion that
// meets it are in test/int/events/stream-order.int.test.ts.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { afterCommit, transact, withinTransaction, type Tx } from '../../../server/persistence/transaction.js';
import { startTestApp, type TestApp } from '../../support/app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  await app.em().execute('create table transaction_retry_probe (id uuid primary key, run text not null, attempt int not null)');
});
afterAll(async () => {
  await app?.close();
});

const refuse = (tx: Tx, code = '40001') => tx.execute(`do $$ begin raise exception 'forced refusal' using errcode = '${code}'; end $$`);
const note = (tx: Tx, run: string, attempt: number) =>
  tx.execute('insert into transaction_retry_probe (id, run, attempt) values (?, ?, ?)', [randomUUID(), run, attempt]);
const notes = (run: string) => app.em().execute<{ attempt: number }[]>('select attempt from transaction_retry_probe where run = ? order by attempt', [run]);

describe('a unit of work refused with serialization_failure runs again', () => {
  it('withinTransaction: the refused attempt leaves no row and no effect; the next commits once and announces once', async () => {
    const run = randomUUID();
    let attempts = 0;
    const effects: number[] = [];
    const value = await withinTransaction(app.deps.orm, async (tx) => {
      const attempt = ++attempts;
      await note(tx, run, attempt);
      afterCommit(app.deps.orm, () => effects.push(attempt));
      if (attempt < 3) await refuse(tx);
      return { commit: true, value: `committed by attempt ${attempt}` };
    });
    expect(value).toBe('committed by attempt 3');
    expect(await notes(run)).toEqual([{ attempt: 3 }]);
    expect(effects).toEqual([3]);
  });

  it('withinTransaction: refused three times, the refusal propagates and nothing is left', async () => {
    const run = randomUUID();
    let attempts = 0;
    const effects: number[] = [];
    const refused = withinTransaction(app.deps.orm, async (tx) => {
      await note(tx, run, ++attempts);
      afterCommit(app.deps.orm, () => effects.push(attempts));
      await refuse(tx);
      return { commit: true, value: null };
    });
    await expect(refused).rejects.toMatchObject({ code: '40001' });
    expect(attempts).toBe(3);
    expect(await notes(run)).toEqual([]);
    expect(effects).toEqual([]);
  });

  it('transact on its own runs again too; a refusal it returns (not throws) rolls back once and is answered', async () => {
    const run = randomUUID();
    let attempts = 0;
    const result = await transact(app.deps.orm, async (tx) => {
      await note(tx, run, ++attempts);
      if (attempts === 1) await refuse(tx);
      return { ok: true, value: attempts };
    });
    expect(result).toEqual({ ok: true, value: 2 });
    expect(await notes(run)).toEqual([{ attempt: 2 }]);

    let refusedAttempts = 0;
    const refusal = await transact(app.deps.orm, async (tx) => {
      await note(tx, run, 10 + ++refusedAttempts);
      return { ok: false, code: 'version_conflict', detail: 'a refusal the work returns' };
    });
    expect(refusal).toMatchObject({ ok: false, code: 'version_conflict' });
    expect(refusedAttempts).toBe(1);
    expect(await notes(run)).toEqual([{ attempt: 2 }]);
  });

  it('a transact inside withinTransaction (a savepoint) is not retried alone: the whole request runs again', async () => {
    const run = randomUUID();
    let outer = 0;
    let inner = 0;
    const value = await withinTransaction(app.deps.orm, async (tx) => {
      outer++;
      await note(tx, run, outer * 10);
      const result = await transact(app.deps.orm, async (savepoint) => {
        inner++;
        await note(savepoint, run, outer * 10 + 1);
        if (inner === 1) await refuse(savepoint);
        return { ok: true, value: inner };
      });
      return { commit: true, value: result };
    });
    expect(value).toEqual({ ok: true, value: 2 });
    expect({ outer, inner }).toEqual({ outer: 2, inner: 2 });
    expect(await notes(run)).toEqual([{ attempt: 20 }, { attempt: 21 }]);
  });

  it('another error (a unique violation, a deadlock, the nearest code to 40001) is not retried', async () => {
    for (const code of ['23505', '40P01', '40002']) {
      let attempts = 0;
      const refused = withinTransaction(app.deps.orm, async (tx) => {
        attempts++;
        await refuse(tx, code);
        return { commit: true, value: null };
      });
      await expect(refused, code).rejects.toMatchObject({ code });
      expect(attempts, code).toBe(1);
    }
  });
});
