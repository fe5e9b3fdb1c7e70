/**
 * Making freshly written files durable: an fsync each, a bounded number in flight (the
 * fsyncs of one file system share its journal commits). When the promise resolves, the
 * files' contents survive a power cut (a `kill -9` never needed it: the page cache outlives
 * the process). A file that cannot be fsynced makes the promise reject, as a failed write would.
 */
import { promises as fsp } from 'node:fs';
import { forEachLimit, IO_CONCURRENCY } from './workspace.js';

/** fsync one file (opened read-only: enough on Linux and macOS for fsync). */
async function fsyncFile(abs: string): Promise<void> {
  const fh = await fsp.open(abs, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Make `files` (absolute paths of regular files already written and closed) durable. */
export async function syncFiles(files: readonly string[]): Promise<void> {
  await forEachLimit(files, IO_CONCURRENCY, (f) => fsyncFile(f));
}
