// A list's total for the admin app's "1–20 of N" (issue 36): exact up to TOTAL_BOUND, "10,000+" past it,
// counted with a LIMIT so a page view never counts every row.
import { z } from 'zod';

/** Totals are exact up to this many; past it a list says "10,000+". */
export const TOTAL_BOUND = 10_000;

export interface ListTotal {
  /** the exact count, or TOTAL_BOUND when there are more */
  count: number;
  /** false: there are more than `count` */
  exact: boolean;
}

/** `counted` is a count with `limit TOTAL_BOUND + 1`; `atLeast`: counted over part of the list, so at least that many. */
export const boundedTotal = (counted: number, atLeast = false): ListTotal => ({
  count: Math.min(counted, TOTAL_BOUND),
  exact: !atLeast && counted <= TOTAL_BOUND,
});

export const listTotalOutput = z
  .object({
    count: z.number().int().describe('The number of matching items, or 10,000 when there are more.'),
    exact: z
      .boolean()
      .describe(
        'false when more items may match than count: past 10,000, or a tension search of one or two characters counted over part of the list (count is then at least).',
      ),
  })
  .describe('How many items the list\'s filters match: exact up to 10,000; past it, count is 10,000 and exact is false ("10,000+").');
