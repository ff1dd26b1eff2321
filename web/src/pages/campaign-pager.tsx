import { useState } from 'react';

/** Cursor paging as herald answers it (`next_cursor`), with the cursors of the pages before for "Previous". */
export function useCursorPages() {
  const [trail, setTrail] = useState<string[]>([]);
  const [cursor, setCursor] = useState<string | undefined>();
  return {
    cursor,
    reset: (): void => { setTrail([]); setCursor(undefined); },
    previous: (): void => { setCursor(trail.at(-1)); setTrail(trail.slice(0, -1)); },
    next: (nextCursor: string): void => { setTrail(cursor === undefined ? [] : [...trail, cursor]); setCursor(nextCursor); },
  };
}

export function CursorPager(props: { label: string; pages: ReturnType<typeof useCursorPages>; nextCursor: string | null }) {
  const { pages, nextCursor } = props;
  return (
    <nav className="pager" aria-label={props.label}>
      <button type="button" className="button secondary" disabled={pages.cursor === undefined} onClick={pages.previous}>← Previous</button>
      <button type="button" className="button secondary" disabled={nextCursor === null} onClick={() => nextCursor !== null && pages.next(nextCursor)}>Next →</button>
    </nav>
  );
}
