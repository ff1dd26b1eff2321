// Segment counts (/v1/segments/count): how many contacts an audience holds now.
import { api } from './http.ts';
import type { SegmentRequest } from './types.ts';

export const segmentKeys = { count: (request: string | undefined) => ['segment-count', request] } as const;

export const countSegment = (request: SegmentRequest) => api<{ contacts: number }>('/v1/segments/count', { method: 'POST', body: request });
