// How the email load generators keep a sender busy without flooding it: at most
// `inFlight` sends pending, each lane taking the next message as its last one is done
// (herald's worker keeps its per-channel slots the same way).

export async function sendInLanes<T>(queue: readonly T[], inFlight: number, send: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < queue.length) {
      const item = queue[next++];
      if (item !== undefined) await send(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, queue.length) }, lane));
}
