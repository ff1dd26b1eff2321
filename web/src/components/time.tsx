import { localDate, localTime, utcTime } from '../lib/format.ts';

/** A time in the browser's zone; the UTC time on hover. */
export function Time(props: { iso: string | null | undefined; dateOnly?: boolean; fallback?: string }) {
  if (props.iso === null || props.iso === undefined) return <span className="muted">{props.fallback ?? '—'}</span>;
  return (
    <time dateTime={props.iso} title={utcTime(props.iso)}>
      {props.dateOnly === true ? localDate(props.iso) : localTime(props.iso)}
    </time>
  );
}
