// Under a list (issue 36): "1–20 of 2,000" (the API's bounded total: "10,000+" past it) and the page size.
import { useI18n } from '../i18n/index.js';
import type { usePager } from '../lib/use-pager.js';
import { Field, Pager } from './ui.js';

/** Page sizes offered; the API serves up to 100. */
export const PAGE_SIZES = [20, 50, 100] as const;
/** The page size a URL's `limit` asks for (20 unless it names an offered one). */
export const pageSize = (v: string) => PAGE_SIZES.find((n) => String(n) === v) ?? PAGE_SIZES[0];
/** The URL's `limit` for a chosen size: the default is left out. */
export const limitParam = (n: number) => (n === PAGE_SIZES[0] ? '' : String(n));

export interface ListTotal {
  count: number;
  exact: boolean;
}

/** "1–20 of 2,000", or "of 10,000+" past the bound the server counts to. */
function RangeText({ page, limit, shown, total }: { page: number; limit: number; shown: number; total: ListTotal }) {
  const { t, lang } = useI18n();
  const n = new Intl.NumberFormat(lang === 'de' ? 'de-DE' : 'en-GB');
  const from = (page - 1) * limit + 1;
  const params = { from: n.format(from), to: n.format(from + shown - 1), total: `${n.format(total.count)}${total.exact ? '' : '+'}` };
  return (
    <p className="list-range muted" role="status" data-testid="list-range">
      {shown === 0 ? t('list.rangeNone', params) : t('list.range', params)}
    </p>
  );
}

export function ListFooter({
  page,
  limit,
  shown,
  total,
  onPageSize,
}: {
  page: number;
  limit: number;
  shown: number;
  /** absent while the total loads or for a caller it is not served to */
  total?: ListTotal | null;
  onPageSize: (n: number) => void;
}) {
  const { t } = useI18n();
  return (
    <div className="list-footer">
      {total ? <RangeText page={page} limit={limit} shown={shown} total={total} /> : <span />}
      <Field label={t('list.pageSize')}>
        {(p) => (
          <select {...p} name="limit" value={limit} onChange={(e) => onPageSize(Number(e.target.value))}>
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        )}
      </Field>
    </div>
  );
}

/**
 * Under a list paged by cursor: its range and page size (ListFooter), then previous/next (Pager) when there is
 * more than one page. `nextCursor` is the page's; `onPageSize` keeps the chosen size (in the URL).
 */
export function ListPaging({
  pager,
  nextCursor,
  ...footer
}: {
  pager: ReturnType<typeof usePager>;
  nextCursor: string | null | undefined;
  limit: number;
  shown: number;
  total?: ListTotal | null;
  onPageSize: (n: number) => void;
}) {
  return (
    <>
      <ListFooter page={pager.page} {...footer} />
      <Pager page={pager.page} hasNext={Boolean(nextCursor)} onPrevious={pager.previous} onNext={() => nextCursor && pager.next(nextCursor)} />
    </>
  );
}
