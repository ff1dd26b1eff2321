import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../api/http.ts';
import { Page } from '../components/page.tsx';
import { QueryState } from '../components/query-state.tsx';

/**
 * A record of the marketing pages (a list, a contact, a campaign) read by id: its page,
 * or "not found" when herald answers 404 (an id of another account answers the same).
 */
export function RecordPage<T>(props: { query: UseQueryResult<T>; noun: string; id: string; back: string; backLabel: string; children: (found: T) => ReactNode }) {
  const { query } = props;
  if (query.error instanceof ApiError && query.error.status === 404) {
    return (
      <Page title={`${props.noun[0]?.toUpperCase() ?? ''}${props.noun.slice(1)} not found`} description={<Link to={props.back}>← {props.backLabel}</Link>}>
        <div className="state empty" role="alert"><p><strong>No {props.noun} of this account has the id <code>{props.id}</code>.</strong></p></div>
      </Page>
    );
  }
  return <QueryState query={query}>{props.children}</QueryState>;
}
