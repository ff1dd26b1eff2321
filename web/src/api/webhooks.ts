// Webhook settings (/v1/webhooks), the account's endpoints (/v1/webhooks/endpoints) and the delivery logs.
import { api } from './http.ts';
import type { DeliveryDetails, DeliveryPage, DeliverySummary, RetryFailedResult, RotatedSecret, WebhookEndpointView, WebhookSettingsView } from './types.ts';

export const DELIVERY_PAGE = 25;

const deliveryPath = (id: string, tail = ''): string => `/v1/webhooks/deliveries/${encodeURIComponent(id)}${tail}`;

export const webhookKeys = {
  settings: ['webhook-settings'],
  deliveries: ['webhook-deliveries'],
  deliveryPage: (status: string, cursor: string | undefined, endpointId?: string) => ['webhook-deliveries', status, cursor, endpointId ?? 'first'],
  endpoints: ['webhook-endpoints'],
  endpoint: (id: string) => ['webhook-endpoints', id],
  delivery: (id: string) => ['webhook-delivery', id],
} as const;

export const webhookSettingsQuery = { queryKey: webhookKeys.settings, queryFn: () => api<WebhookSettingsView>('/v1/webhooks') } as const;

/** `events: null` subscribes to every event type, including ones added later. */
export const saveWebhookSettings = (settings: { url: string | null; events: string[] | null }) =>
  api<WebhookSettingsView>('/v1/webhooks', { method: 'PUT', body: settings });

export const rotateWebhookSecret = () => api<RotatedSecret>('/v1/webhooks/secret/rotate', { method: 'POST' });

/** The first endpoint's log, or with `endpointId` that endpoint's. */
export const fetchDeliveries = (status: string, cursor: string | undefined, endpointId?: string) =>
  api<DeliveryPage>(endpointId === undefined ? '/v1/webhooks/deliveries' : `${endpointPath(endpointId)}/deliveries`, { query: { status, cursor, limit: DELIVERY_PAGE } });

export const deliveryQuery = (id: string) => ({
  queryKey: webhookKeys.delivery(id),
  queryFn: () => api<DeliveryDetails>(deliveryPath(id)),
}) as const;

export const sendTestEvent = () => api<DeliverySummary>('/v1/webhooks/test', { method: 'POST' });

export const retryDelivery = (id: string) => api<DeliverySummary>(deliveryPath(id, '/retry'), { method: 'POST' });

/** Puts every failed delivery created at or after `since` back in the queue. */
export const retryFailedSince = (since: string, endpointId?: string) =>
  api<RetryFailedResult>(`${endpointId === undefined ? '/v1/webhooks' : endpointPath(endpointId)}/deliveries/retry-failed`, { method: 'POST', body: { since } });

const endpointPath = (id: string): string => `/v1/webhooks/endpoints/${encodeURIComponent(id)}`;

export const endpointsQuery = { queryKey: webhookKeys.endpoints, queryFn: () => api<{ data: WebhookEndpointView[] }>('/v1/webhooks/endpoints') } as const;

export const endpointQuery = (id: string) => ({ queryKey: webhookKeys.endpoint(id), queryFn: () => api<WebhookEndpointView>(endpointPath(id)) }) as const;

export interface EndpointFields {
  url?: string;
  description?: string | null;
  /** null: every event type, including ones added later. */
  event_types?: string[] | null;
  enabled?: boolean;
}

export const createEndpoint = (fields: EndpointFields & { url: string }) => api<WebhookEndpointView>('/v1/webhooks/endpoints', { method: 'POST', body: fields });

export const updateEndpoint = (id: string, fields: EndpointFields) => api<WebhookEndpointView>(endpointPath(id), { method: 'PATCH', body: fields });

export const deleteEndpoint = (id: string) => api<null>(endpointPath(id), { method: 'DELETE' });

export const rotateEndpointSecret = (id: string) => api<RotatedSecret>(`${endpointPath(id)}/secret/rotate`, { method: 'POST' });

/** A test event of `type` (`webhook.test` or a public event type) to this endpoint only. */
export const sendEndpointTest = (id: string, type: string) => api<DeliverySummary>(`${endpointPath(id)}/test`, { method: 'POST', body: { type } });
