// The requests one API key made (GET /v1/api-keys/:keyId/requests), newest first.
import { api } from './http.ts';
import type { ApiRequestPage } from '@herald/http/schemas/api-requests.ts';

export type { ApiRequestPage };
export const API_REQUEST_PAGE = 50;

export const apiRequestKeys = {
  page: (keyId: string, cursor: string | undefined) => ['api-requests', keyId, cursor],
} as const;

export const fetchApiRequests = (keyId: string, cursor: string | undefined) =>
  api<ApiRequestPage>(`/v1/api-keys/${encodeURIComponent(keyId)}/requests`, { query: { cursor, limit: API_REQUEST_PAGE } });
