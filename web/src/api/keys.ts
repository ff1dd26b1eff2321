// API keys (/v1/api-keys): listed without their secret, shown once when made.
import { api } from './http.ts';
import type { ApiKeyCreated, ApiKeyList, NewApiKeyInput } from './types.ts';

export const apiKeyKeys = { all: ['api-keys'] } as const;

export const apiKeysQuery = { queryKey: apiKeyKeys.all, queryFn: () => api<ApiKeyList>('/v1/api-keys') } as const;

export const createApiKey = (input: NewApiKeyInput) => api<ApiKeyCreated>('/v1/api-keys', { method: 'POST', body: input });

export const revokeApiKey = (keyId: string) => api<undefined>(`/v1/api-keys/${encodeURIComponent(keyId)}`, { method: 'DELETE' });
