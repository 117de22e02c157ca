// The dashboard's rollups against what they count: each key's rows (shards) summed, as every reader sums them.
import { expect } from 'vitest';
import type { TestApp } from './app.js';

/** `tension_load` equals the tensions per actor, state and score, and `tension_flow_days` the tension events per UTC day and type. */
export async function expectRollupsMatchSources(app: TestApp): Promise<void> {
  const same = async (rollup: string, truth: string) => expect(await app.em().execute(rollup)).toEqual(await app.em().execute(truth));
  await same(
    'select actor_id, state, score, sum(n)::int as n from tension_load group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3',
    'select actor_id, state, score, count(*)::int as n from tensions group by 1, 2, 3 order by 1, 2, 3',
  );
  await same(
    'select day, type, sum(n)::int as n, sum(score_sum)::int as s from tension_flow_days group by 1, 2 order by 1, 2',
    `select (occurred_at at time zone 'UTC')::date as day, type, count(*)::int as n,
            sum(case when type = 'TensionSensed' then coalesce((data ->> 'score')::int, 0) else 0 end)::int as s
     from domain_events where stream_type = 'tension' group by 1, 2 order by 1, 2`,
  );
}
