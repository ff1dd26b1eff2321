import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import {
  liveState, noteActivity, onLiveState, parseLiveEvent, POLLED_KEYS, setLiveState, staleKeysOf,
} from '../lib/live-events.ts';
import './live-updates.css';

// The account's events reach open pages (docs/live-updates.md): one EventSource for the
// whole application, mounted once by the shell, marks stale the queries of what changed,
// and the pages that show them fetch again. When the stream cannot be opened (refused,
// herald unreachable) or drops, the same pages are refreshed every POLL_MS instead, and
// a new stream is tried every REOPEN_MS.

/** How often the pages are refreshed while there is no stream. */
export const POLL_MS = 5_000;
const REOPEN_MS = 30_000;
/** Events arriving together make one refresh per query… */
const GATHER_MS = 200;
/** …and refreshes come at most this often: a running campaign's events must not spend the user's request allowance (HERALD_SESSION_RATE_LIMIT). */
const REFRESH_GAP_MS = 1_000;

export const LIVE_STREAM_PATH = '/v1/events/stream';

export function LiveUpdates() {
  const client = useQueryClient();
  const { t } = useTranslation('live');
  const state = useSyncExternalStore(onLiveState, liveState);

  useEffect(() => {
    let source: EventSource | undefined;
    let poll: number | undefined;
    let reopen: number | undefined;
    let gather: number | undefined;
    let wasOpen = false;
    let flushedAt = 0;
    const stale = new Map<string, unknown[]>();
    const refresh = (keys: readonly unknown[][]): void => {
      for (const queryKey of keys) void client.invalidateQueries({ queryKey });
    };
    const flush = (): void => {
      gather = undefined;
      flushedAt = Date.now();
      refresh([...stale.values()]);
      stale.clear();
    };
    const startPolling = (): void => {
      setLiveState('polling');
      poll ??= window.setInterval(() => refresh(POLLED_KEYS), POLL_MS);
    };
    const stopPolling = (): void => {
      window.clearInterval(poll);
      poll = undefined;
    };
    const open = (): void => {
      reopen = undefined;
      if (typeof EventSource === 'undefined') return startPolling();
      const stream = new EventSource(LIVE_STREAM_PATH);
      source = stream;
      stream.onopen = () => {
        stopPolling();
        setLiveState('live');
        // Back after a drop: what happened meanwhile is read once.
        if (wasOpen) refresh(POLLED_KEYS);
        wasOpen = true;
      };
      stream.onmessage = (message: MessageEvent<string>) => {
        const event = parseLiveEvent(message.data);
        if (event === undefined) return;
        noteActivity(event);
        for (const key of staleKeysOf(event)) stale.set(JSON.stringify(key), key);
        gather ??= window.setTimeout(flush, Math.max(GATHER_MS, flushedAt + REFRESH_GAP_MS - Date.now()));
      };
      // The session ended (signed out in another tab, say): nothing more comes. The page stays as it
      // is until the user acts; that request gets herald's 401 and the shell takes them to sign in.
      stream.addEventListener('session-ended', () => {
        stream.close();
        source = undefined;
        stopPolling();
        setLiveState('off');
      });
      stream.onerror = () => {
        startPolling();
        // CLOSED: the stream was refused (a 429, a 401); the browser will not try again by itself.
        if (stream.readyState === EventSource.CLOSED && source === stream) {
          source = undefined;
          reopen = window.setTimeout(open, REOPEN_MS);
        }
      };
    };
    open();
    return () => {
      source?.close();
      stopPolling();
      window.clearTimeout(reopen);
      window.clearTimeout(gather);
      setLiveState('connecting');
    };
  }, [client]);

  return (
    <p className={`live-status live-status-${state}`} role="status">
      <span className="live-dot" aria-hidden="true" />
      {state === 'live' ? t('status.live') : state === 'polling' ? t('status.polling', { count: POLL_MS / 1000 }) : state === 'off' ? t('status.off') : t('status.connecting')}
    </p>
  );
}
