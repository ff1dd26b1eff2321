import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, NavLink, useParams } from 'react-router';
import { conversationsQuery } from '../api/conversations.ts';
import type { ConversationSummary } from '../api/types.ts';
import { CursorPager, useCursorPagesInAddress } from '../components/cursor-pager.tsx';
import { Page } from '../components/page.tsx';
import { Empty, QueryState } from '../components/query-state.tsx';
import { Time } from '../components/time.tsx';
import { ConversationThreadPane } from './conversation-thread.tsx';
import { useChannelName } from './conversation-channel.ts';
import './conversations.css';

/** Where a person's thread lives: the person URL-encoded (an address, or + and digits). */
const threadPath = (person: string): string => `/conversations/${encodeURIComponent(person)}`;

/**
 * One thread per person who wrote to the account, across channels: the people on the left
 * (stacked above at phone width, where an open thread shows alone), the thread on the right.
 */
export default function ConversationsPage() {
  const { t } = useTranslation('conversations');
  const { person } = useParams();
  const pages = useCursorPagesInAddress();
  const list = useQuery({ ...conversationsQuery(pages.cursor), placeholderData: (previous) => previous, staleTime: 0, refetchInterval: 30_000 });
  const nobody = list.data !== undefined && list.data.data.length === 0 && pages.cursor === undefined;

  return (
    <Page title={t('title')} description={t('description')}>
      <QueryState query={list} isEmpty={() => nobody && person === undefined}
        empty={<Empty title={t('empty.title')}>
          <p>{t('empty.text')}</p>
        </Empty>}>
        {(data) => (
          <div className={person === undefined ? 'conversations' : 'conversations with-thread'}>
            <nav className="conversation-list card" aria-label={t('listLabel')}>
              {data.data.length === 0 ? <p className="muted">{t('emptyPage')}</p> : (
                <ul>
                  {data.data.map((c) => <li key={c.person}><ConversationLink conversation={c} /></li>)}
                </ul>
              )}
              <CursorPager label={t('pages')} pages={pages} nextCursor={data.next_cursor} newestFirst />
            </nav>
            {person === undefined
              ? <section className="conversation-thread card placeholder" aria-label={t('threadLabel')}><p className="muted">{t('choose')}</p></section>
              : <ConversationThreadPane key={person} person={person} back={<Link to="/conversations" className="back-link">{t('back')}</Link>} />}
          </div>
        )}
      </QueryState>
    </Page>
  );
}

function ConversationLink(props: { conversation: ConversationSummary }) {
  const { t } = useTranslation('conversations');
  const channelName = useChannelName();
  const c = props.conversation;
  return (
    <NavLink to={threadPath(c.person)} className="conversation-link">
      <span className="conversation-person">{c.person}</span>
      <span className="conversation-meta">
        <Time iso={c.last_at} /> · {c.channels.map(channelName).join(', ')}
      </span>
      <span className="conversation-last">
        {c.last_direction === 'out' ? <span className="muted">{t('you')} </span> : null}{c.last_text ?? <span className="muted">{t('noText')}</span>}
      </span>
    </NavLink>
  );
}
