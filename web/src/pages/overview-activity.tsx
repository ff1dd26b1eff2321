import { useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';
import { liveState, onActivity, onLiveState, recentActivity, type LiveEvent } from '../lib/live-events.ts';

// The overview's activity feed: the account's events as they reach this tab over the live
// stream (components/live-updates.tsx), newest first. Only ids and statuses travel: a line
// names what happened and links to the page that shows the rest.

const channelKey = (channel: unknown): string => (channel === 'sms' || channel === 'whatsapp' ? channel : 'email');

function ActivityLine(props: { event: LiveEvent }) {
  const { t } = useTranslation('live');
  const { event } = props;
  const channel = t(`channel.${channelKey(event.channel)}`);
  const line = (() => {
    switch (event.type) {
      case 'message.created':
      case 'message.updated':
        return (
          <>
            <Link to={`/messages/${encodeURIComponent(event.message_id ?? '')}`}>
              {event.type === 'message.created' ? t('activity.messageCreated', { channel }) : t('activity.messageUpdated', { channel })}
            </Link>
            {/* A new message's status is the one it has when read: only a change says which step it was. */}
            {event.type === 'message.updated' ? <> <StatusBadge status={event.status ?? ''} /></> : null}
          </>
        );
      case 'inbound.received':
        return <Link to="/conversations">{t('activity.inbound', { channel })}</Link>;
      case 'webhook.queued':
      case 'webhook.attempted':
        return (
          <>
            <Link to={`/webhooks/deliveries/${encodeURIComponent(event.delivery_id ?? '')}`}>
              {event.type === 'webhook.queued' ? t('activity.webhookQueued', { event: event.event_type })
                : typeof event.status_code === 'number' ? t('activity.webhookAnswered', { event: event.event_type, code: event.status_code })
                  : t('activity.webhookUnanswered', { event: event.event_type })}
            </Link>{' '}
            <StatusBadge status={event.status ?? ''} />
          </>
        );
      case 'import.updated':
        return <>{t('activity.import', { count: Number(event['rows'] ?? 0) })} <StatusBadge status={event.status ?? ''} /></>;
      case 'campaign.updated':
        return (
          <>
            <Link to={`/campaigns/${encodeURIComponent(String(event['campaign_id'] ?? ''))}`}>{t('activity.campaign')}</Link>{' '}
            <StatusBadge status={event.status ?? ''} />
          </>
        );
      default:
        return null;
    }
  })();
  return <li className="activity-line"><Time iso={event.at} /> {line}</li>;
}

export function OverviewActivity() {
  const { t } = useTranslation('live');
  const events = useSyncExternalStore(onActivity, recentActivity);
  const state = useSyncExternalStore(onLiveState, liveState);
  if (events.length === 0) {
    return (
      <div className="state empty">
        <p><strong>{t('activity.empty')}</strong></p>
        <p className="hint">{state === 'polling' ? t('activity.emptyPolling') : t('activity.emptyLive')}</p>
      </div>
    );
  }
  return <ol className="activity" aria-label={t('activity.label')}>{events.map((noted) => <ActivityLine key={noted.seq} event={noted.event} />)}</ol>;
}
