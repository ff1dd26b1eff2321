import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiError } from '../api/http.ts';

export function Loading(props: { label?: string }) {
  return <p className="state loading" role="status"><span className="spinner" aria-hidden="true" />{props.label ?? 'Loading…'}</p>;
}

export function ErrorNotice(props: { error: unknown; onRetry?: () => void }) {
  const error = props.error;
  const text = error instanceof ApiError ? error.message : 'Something went wrong.';
  const detail = error instanceof ApiError ? error.detail : undefined;
  return (
    <div className="state error" role="alert">
      <p><strong>{text}</strong>{detail === undefined ? null : <> — {detail}</>}</p>
      {props.onRetry === undefined ? null : <button type="button" className="button secondary" onClick={props.onRetry}>Try again</button>}
    </div>
  );
}

export function Empty(props: { title: string; children?: ReactNode }) {
  return (
    <div className="state empty">
      <p><strong>{props.title}</strong></p>
      {props.children}
    </div>
  );
}

/** Loading, error (with retry) and empty states around a query's data. */
export function QueryState<T>(props: {
  query: UseQueryResult<T>;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  loadingLabel?: string;
  children: (data: T) => ReactNode;
}) {
  const { query } = props;
  if (query.isPending) return <Loading {...(props.loadingLabel === undefined ? {} : { label: props.loadingLabel })} />;
  if (query.isError) return <ErrorNotice error={query.error} onRetry={() => void query.refetch()} />;
  if (props.isEmpty?.(query.data) === true) return <>{props.empty}</>;
  return <>{props.children(query.data)}</>;
}
