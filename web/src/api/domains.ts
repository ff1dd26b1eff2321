// Sender domains (/v1/domains): the fetchers and query keys every page uses for them.
import { api } from './http.ts';
import type { SenderDomainDetails, SenderDomainVerification } from './types.ts';

const domainPath = (name: string, tail = ''): string => `/v1/domains/${encodeURIComponent(name)}${tail}`;

export const domainKeys = {
  all: ['domains'],
  detail: (name: string) => ['domain', name],
} as const;

export const domainsQuery = {
  queryKey: domainKeys.all,
  queryFn: () => api<{ domains: SenderDomainDetails[] }>('/v1/domains'),
} as const;

export const domainQuery = (name: string) => ({
  queryKey: domainKeys.detail(name),
  queryFn: () => api<SenderDomainDetails>(domainPath(name)),
}) as const;

export const addDomain = (domain: string) => api<SenderDomainDetails>('/v1/domains', { method: 'POST', body: { domain } });

/** Looks the records up now: each check's result, and the domain's new state. */
export const verifyDomain = (name: string) => api<SenderDomainVerification>(domainPath(name, '/verify'), { method: 'POST' });

/** Deletes the domain; 409 while a scheduled or running campaign sends from it. */
export const deleteDomain = (name: string) => api<undefined>(domainPath(name), { method: 'DELETE' });
