import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ApiError } from '../api/http.ts';
import { Page } from '../components/page.tsx';
import { QueryState } from '../components/query-state.tsx';

/**
 * A record of the marketing pages (a list, a contact, a campaign) read by id: its page,
 * or "not found" when herald answers 404 (an id of another account answers the same).
 * `noun` is the record's name in the page's language (the caller's catalogue).
 */
export function RecordPage<T>(props: { query: UseQueryResult<T>; noun: string; id: string; back: string; backLabel: string; children: (found: T) => ReactNode }) {
  const { t, i18n } = useTranslation('reports');
  const { query } = props;
  if (query.error instanceof ApiError && query.error.status === 404) {
    const noun = props.noun;
    const title = t('missing.title', { noun });
    return (
      <Page title={`${title.charAt(0).toLocaleUpperCase(i18n.language)}${title.slice(1)}`} description={<Link to={props.back}>← {props.backLabel}</Link>}>
        <div className="state empty" role="alert"><p><strong><Trans t={t} i18nKey="missing.body" values={{ noun }} components={{ id: <code>{props.id}</code> }} /></strong></p></div>
      </Page>
    );
  }
  return <QueryState query={query}>{props.children}</QueryState>;
}
