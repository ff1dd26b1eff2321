// Segments (/v1/segments): an audience counted, sampled, and saved by name.
import { api } from './http.ts';
import type { SavedSegmentView, SegmentRequest, SegmentSample } from './types.ts';

export const segmentKeys = {
  count: (request: string | undefined) => ['segment-count', request],
  sample: (request: string | undefined) => ['segment-sample', request],
  saved: ['segments'],
} as const;

export const countSegment = (request: SegmentRequest) => api<{ contacts: number }>('/v1/segments/count', { method: 'POST', body: request });

/** The audience's first contacts (at most 20), to preview a campaign as one of them. */
export const sampleSegment = (request: SegmentRequest) => api<SegmentSample>('/v1/segments/sample', { method: 'POST', body: request });

export const savedSegmentsQuery = {
  queryKey: segmentKeys.saved,
  queryFn: () => api<{ segments: SavedSegmentView[] }>('/v1/segments'),
} as const;

const segmentPath = (id: string): string => `/v1/segments/${encodeURIComponent(id)}`;

export const saveSegment = (body: SegmentRequest & { name: string }) => api<SavedSegmentView>('/v1/segments', { method: 'POST', body });
export const replaceSegment = (id: string, body: SegmentRequest & { name: string }) => api<SavedSegmentView>(segmentPath(id), { method: 'PUT', body });
export const deleteSegment = (id: string) => api<undefined>(segmentPath(id), { method: 'DELETE' });
