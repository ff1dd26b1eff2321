// Webhook settings (/v1/webhooks) and the delivery log (/v1/webhooks/deliveries).
import { api } from './http.ts';
import type { DeliveryDetails, DeliveryPage, DeliverySummary, RetryFailedResult, RotatedSecret, WebhookSettingsView } from './types.ts';

export const DELIVERY_PAGE = 25;

const deliveryPath = (id: string, tail = ''): string => `/v1/webhooks/deliveries/${encodeURIComponent(id)}${tail}`;

export const webhookKeys = {
  settings: ['webhook-settings'],
  deliveries: ['webhook-deliveries'],
  deliveryPage: (status: string, cursor: string | undefined) => ['webhook-deliveries', status, cursor],
  delivery: (id: string) => ['webhook-delivery', id],
} as const;

export const webhookSettingsQuery = { queryKey: webhookKeys.settings, queryFn: () => api<WebhookSettingsView>('/v1/webhooks') } as const;

/** `events: null` subscribes to every event type, including ones added later. */
export const saveWebhookSettings = (settings: { url: string | null; events: string[] | null }) =>
  api<WebhookSettingsView>('/v1/webhooks', { method: 'PUT', body: settings });

export const rotateWebhookSecret = () => api<RotatedSecret>('/v1/webhooks/secret/rotate', { method: 'POST' });

export const fetchDeliveries = (status: string, cursor: string | undefined) =>
  api<DeliveryPage>('/v1/webhooks/deliveries', { query: { status, cursor, limit: DELIVERY_PAGE } });

export const deliveryQuery = (id: string) => ({
  queryKey: webhookKeys.delivery(id),
  queryFn: () => api<DeliveryDetails>(deliveryPath(id)),
}) as const;

export const sendTestEvent = () => api<DeliverySummary>('/v1/webhooks/test', { method: 'POST' });

export const retryDelivery = (id: string) => api<DeliverySummary>(deliveryPath(id, '/retry'), { method: 'POST' });

/** Puts every failed delivery created at or after `since` back in the queue. */
export const retryFailedSince = (since: string) => api<RetryFailedResult>('/v1/webhooks/deliveries/retry-failed', { method: 'POST', body: { since } });
