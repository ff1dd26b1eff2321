// The WAL checkpointer's thread (store/wal-checkpointer.ts): its own connection to the
// database file, copying committed WAL frames into it off the service's event loop. It
// checkpoints once at start and then when told ('now'): the ticks are a periodic job of
// the engine (queue/periodic-job.ts) in the main thread, and the writer's pauses.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import type { CheckpointerData, CheckpointReport, CheckpointRequest } from './wal-checkpointer.ts';

const { location } = workerData as CheckpointerData;
// synchronous stays FULL: a checkpoint syncs the WAL before copying it and the database
// file after, so SQLite never overwrites WAL frames that are not yet safe in the file.
const db = new DatabaseSync(location, { timeout: 5000 });
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

function run(): void {
  // PASSIVE never waits on the writer or the readers: it copies what it can.
  const row = checkpoint.get() as { busy: number; log: number; checkpointed: number };
  parentPort?.postMessage({ walFrames: row.log, checkpointed: row.checkpointed } satisfies CheckpointReport);
}

run();
parentPort?.on('message', (message: CheckpointRequest) => {
  if (message === 'now') run();
  if (message === 'close') {
    db.close();
    parentPort?.close();
  }
});
