import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';

/** Where a cursor-paged view is: the page's cursor (undefined: the first page) and the moves. */
export interface CursorPages {
  readonly cursor: string | undefined;
  /** Back to the first page (a new filter or search). */
  reset(): void;
  previous(): void;
  next(nextCursor: string): void;
}

/** Cursor paging as herald answers it (`next_cursor`), with the cursors of the pages before for "Previous". */
export function useCursorPages(): CursorPages {
  const [trail, setTrail] = useState<string[]>([]);
  const [cursor, setCursor] = useState<string | undefined>();
  return {
    cursor,
    reset: (): void => { setTrail([]); setCursor(undefined); },
    previous: (): void => { setCursor(trail.at(-1)); setTrail(trail.slice(0, -1)); },
    next: (nextCursor: string): void => { setTrail(cursor === undefined ? [] : [...trail, cursor]); setCursor(nextCursor); },
  };
}

/**
 * The same with the cursor in the address (`?cursor=`), so a page of a log can be shared.
 * `reset` may replace the rest of the address at once (a new filter): one navigation.
 */
export function useCursorPagesInAddress(): CursorPages & { reset(address?: Record<string, string>): void } {
  const [params, setParams] = useSearchParams();
  const [trail, setTrail] = useState<string[]>([]);
  const cursor = params.get('cursor') ?? undefined;
  const go = (nextCursor: string | undefined, nextTrail: string[]): void => {
    setTrail(nextTrail);
    const copy = new URLSearchParams(params);
    if (nextCursor === undefined) copy.delete('cursor');
    else copy.set('cursor', nextCursor);
    setParams(copy);
  };
  return {
    cursor,
    reset: (address?: Record<string, string>): void => {
      if (address === undefined) return go(undefined, []);
      setTrail([]);
      setParams(address);
    },
    previous: (): void => go(trail.at(-1), trail.slice(0, -1)),
    next: (nextCursor: string): void => go(nextCursor, cursor === undefined ? [] : [...trail, cursor]),
  };
}

/** "Previous"/"Next" over a cursor-paged list; `newestFirst` says "Newer"/"Older" (logs and ledgers). */
export function CursorPager(props: { label: string; pages: CursorPages; nextCursor: string | null; newestFirst?: boolean }) {
  const { t } = useTranslation('common');
  const { pages, nextCursor } = props;
  const newest = props.newestFirst === true;
  return (
    <nav className="pager" aria-label={props.label}>
      <button type="button" className="button secondary" disabled={pages.cursor === undefined} onClick={pages.previous}>{newest ? t('pager.newer') : t('pager.previous')}</button>
      <button type="button" className="button secondary" disabled={nextCursor === null} onClick={() => nextCursor !== null && pages.next(nextCursor)}>{newest ? t('pager.older') : t('pager.next')}</button>
    </nav>
  );
}
