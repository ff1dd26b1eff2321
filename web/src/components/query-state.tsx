import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, IP_NOT_ALLOWED } from '../api/http.ts';

export function Loading(props: { label?: string }) {
  const { t } = useTranslation('common');
  return <p className="state loading" role="status"><span className="spinner" aria-hidden="true" />{props.label ?? t('loading')}</p>;
}

export function ErrorNotice(props: { error: unknown; onRetry?: () => void }) {
  const { t } = useTranslation('common');
  const error = props.error;
  // herald's own texts (the interface's, exact to the letter) are shown as herald wrote them.
  const text = error instanceof ApiError ? (error.status === 0 ? t('error.unreachable') : error.message) : t('error.unexpected');
  // The interface's words for an address outside the allow-list say nothing of what to do: the page does.
  const outsideList = error instanceof ApiError && error.status === 403 && error.message === IP_NOT_ALLOWED;
  const detail = outsideList
    ? t('error.outsideAllowList')
    : error instanceof ApiError ? error.detail : undefined;
  return (
    <div className="state error" role="alert">
      <p><strong>{text}</strong>{detail === undefined ? null : <> — {detail}</>}</p>
      {props.onRetry === undefined ? null : <button type="button" className="button secondary" onClick={props.onRetry}>{t('tryAgain')}</button>}
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
