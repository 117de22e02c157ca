// Each tension's copy of its parties' sort names after a rename (Migration20261129160000): a rename records the
// old name in `tension_party_name_syncs`; this rewrites the tensions still carrying it, a batch at a time.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../logger.js';
import { afterCommit } from './transaction.js';

/** Tensions rewritten per transaction: about 0.4 s of row writes at a million tensions, each row locked that long. */
export const PARTY_NAME_BATCH = 1_000;

const PARTY = {
  actor: { table: 'actors', sort: 'actor_sort', id: 'actor_id' },
  user: { table: 'users', sort: 'lead_sort', id: 'lead_user_id' },
} as const;

/**
 * Gives every tension of a renamed party its party's current sort name: for each recorded rename (one at a
 * time, `skip locked`, so instances share the work), up to `batch` of the tensions still under the old name
 * (found by `tensions_actor_sort_idx` / `tensions_lead_sort_idx`) per transaction, until none is left and the
 * record goes. A rename meanwhile records its own old name, so a batch that read a name about to change is
 * put right by the next record. Answers the tensions rewritten.
 */
export async function syncTensionPartyNames(em: EntityManager, batch = PARTY_NAME_BATCH): Promise<number> {
  let rewritten = 0;
  for (;;) {
    const step = await em.fork().transactional(async (tx) => {
      const [job] = await tx.execute<{ party_kind: keyof typeof PARTY; party_id: string; stale_name: string }[]>(
        'select party_kind, party_id, stale_name from tension_party_name_syncs limit 1 for update skip locked',
      );
      if (!job) return null;
      const p = PARTY[job.party_kind];
      // (a recorded name that is the party's name again, renamed back, is no longer stale: nothing to rewrite,
      // where rewriting it to itself would find the same rows again at every batch)
      // The update tests the old name and the party again on the row it locks: a tension given another party
      // while this waited on its row then keeps that party's name (a test on the rows `picked` read alone
      // would be passed by the row's new version, and give it the renamed party's name). Whether the record
      // is done is decided by what was picked, not by what was rewritten, so a row skipped that way never
      // ends a job that has rows left. (`order by id`: the index's own order within a name and a party.)
      // The party's name is read `for share`, held to the commit: a rename waits for the batch, so its record
      // is written only once every row the batch gave the old name is committed and visible to whichever job
      // takes the record (on another instance, at once). Read without the lock, a batch could give rows the
      // name a rename was replacing while that rename's job, seeing none yet, ended: those rows kept it.
      const [{ picked, rewritten: n }] = await tx.execute<{ picked: number; rewritten: number }[]>(
        `with party as (select lower(name) as name from ${p.table} where id = ? for share),
           picked as (select id from tensions where ${p.sort} = ? and ${p.id} = ? and ${p.sort} <> (select name from party) order by id limit ?),
           moved as (update tensions t set ${p.sort} = (select name from party) from picked
             where t.id = picked.id and t.${p.sort} = ? and t.${p.id} = ? returning t.id)
         select (select count(*) from picked)::int as picked, (select count(*) from moved)::int as rewritten`,
        [job.party_id, job.stale_name, job.party_id, batch, job.stale_name, job.party_id],
      );
      if (picked < batch)
        await tx.execute('delete from tension_party_name_syncs where party_kind = ? and party_id = ? and stale_name = ?', [
          job.party_kind,
          job.party_id,
          job.stale_name,
        ]);
      return n;
    });
    if (step === null) return rewritten;
    rewritten += step;
  }
}

/** The background rewrite of renamed parties' names: `renamed()` after a rename, `run()` from housekeeping. */
export interface PartyNameSyncer {
  /** Runs syncTensionPartyNames now (or joins the run under way); resolves when it is done. */
  run(): Promise<void>;
  /**
   * A party was renamed in the current unit of work: runs the rewrite once that commits. Inside an idempotent
   * request's transaction (withinTransaction) that is after its COMMIT; started before, the rewrite would look
   * for the rename's record on its own connection, find none yet, and leave the tensions to housekeeping.
   */
  renamed(): void;
}

/**
 * Runs syncTensionPartyNames in the background, at most one run at a time in this process (a rename during a
 * run is picked up by it or by the run after it); failures are logged and left to the next run (the records
 * stay until their tensions are rewritten).
 */
export function partyNameSyncer(orm: MikroORM, logger: Logger): PartyNameSyncer {
  let running: Promise<void> | null = null;
  let again = false;
  const once = async (): Promise<void> => {
    try {
      const n = await syncTensionPartyNames(orm.em);
      if (n) logger.info({ tensions: n }, 'renamed parties: their tensions’ sort names rewritten');
    } catch (err) {
      logger.warn({ err }, 'rewriting renamed parties’ names on their tensions failed; retried at the next rename or housekeeping round');
    }
  };
  return {
    run() {
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        do {
          again = false;
          await once();
        } while (again);
        running = null;
      })();
      return running;
    },
    renamed() {
      afterCommit(orm, () => void this.run());
    },
  };
}
