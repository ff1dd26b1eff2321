/** A `next` parameter as an in-app path; anything else (another origin, a scheme) goes to the overview. */
export function safeNext(next: string | null): string {
  if (next === null || !next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return '/';
  return next;
}
