// Every fast-check property runs through here: a seed chosen (or replayed from FUZZ_SEED) and printed
// on failure, so a red CI run can be reproduced with `FUZZ_SEED=<seed> npx vitest run <file>`.
import fc from 'fast-check';

function chosenSeed(): number {
  const replay = process.env.FUZZ_SEED;
  if (replay !== undefined && replay !== '') {
    const seed = Number(replay);
    if (!Number.isInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got ${JSON.stringify(replay)}`);
    return seed;
  }
  return (Math.random() * 2 ** 31) | 0;
}

/** `fc.assert` with a known seed; a failure names the seed to replay it with. */
export async function assertProperty<Ts>(property: fc.IRawProperty<Ts>, params: Omit<fc.Parameters<Ts>, 'seed'> = {}): Promise<void> {
  const seed = chosenSeed();
  try {
    await fc.assert(property, { ...params, seed } as fc.Parameters<Ts>);
  } catch (err) {
    const replay = `replay with FUZZ_SEED=${seed}`;
    console.error(`fast-check: property failed; ${replay}`);
    if (err instanceof Error) err.message = `${err.message}\n(${replay})`;
    throw err;
  }
}
