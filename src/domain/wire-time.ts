// Times on the wire are UTC ISO-8601 with milliseconds; the store keeps epoch milliseconds.

export const iso = (ms: number): string => new Date(ms).toISOString();
