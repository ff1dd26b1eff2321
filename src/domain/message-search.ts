// The bounds of a search of the message log, shared by the API (domain/message-query.ts)
// and the web application's filter form, which says them.

/** The longest window a subject, metadata or tag search reads (each candidate's send is looked up). */
export const SEARCH_WINDOW_DAYS = 31;
/** Counts stop here: past it the answer says `10,000+` rather than counting on. */
export const TOTAL_CAP = 10_000;
/** Most candidates one page of such a search reads (a page may end there, short, with a next_cursor). */
export const SEARCH_SCAN_MAX = 10_000;
