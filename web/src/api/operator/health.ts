// The service's health as the operator sees it (/admin/v1/health).
import { api } from '../http.ts';
import type { Health } from '../types.ts';

export const healthKeys = { health: ['operator', 'health'] } as const;

export const healthQuery = { queryKey: healthKeys.health, queryFn: () => api<Health>('/admin/v1/health', { realm: 'operator' }) } as const;
