/**
 * Making many freshly written files durable at once.
 *
 * One fsync per file costs a journal commit each: ~0.35-0.7 ms per small file on these
 * machines, so ~260-530 ms for the 754 files a 1 MiB monolith becomes, even 16 in flight.
 * syncfs(2) flushes every dirty page and the journal of one file system in a single call
 * (~20 ms for the same 754 files). Node has no binding for it, so on Linux we run coreutils'
 * `sync -f PATH` (which is exactly syncfs on PATH's file system), by absolute path and
 * without a shell, once per file system the files live on. Where that is not possible
 * (another OS, no coreutils, a non-zero exit), every file is fsynced instead: the result is
 * the same guarantee, only slower.
 *
 * Either way the guarantee is the one fsync gives: when the promise resolves, the files'
 * contents survive a power cut (a `kill -9` never needed it: the page cache outlives the
 * process). Caveat, as for fsync on old kernels: before Linux 5.8 syncfs did not report
 * write-back errors.
 */
import { execFile } from 'node:child_process';
import { existsSync, promises as fsp, statSync } from 'node:fs';
import { forEachLimit, IO_CONCURRENCY } from './workspace.js';

/** Where coreutils' `sync` is looked for (never through PATH: nothing a caller's environment can swap in). */
export const SYNC_BINARIES = ['/usr/bin/sync', '/bin/sync'] as const;

export type DurableMethod = 'syncfs' | 'fsync' | 'none';

export interface SyncOptions {
  /** Candidate `sync` binaries, first existing one wins (tests pass [] or a failing one). */
  binaries?: readonly string[];
  /** Give up on `sync -f` after this long and fsync each file instead. */
  timeoutMs?: number;
  /** Below this many files, fsync each (starting a process costs more than a few fsyncs). Default 16. */
  minFilesForSyncfs?: number;
}

/** fsync one file (opened read-only: enough on Linux and macOS for fsync). */
export async function fsyncFile(abs: string): Promise<void> {
  const fh = await fsp.open(abs, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

function runSyncF(bin: string, target: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(bin, ['-f', '--', target], { timeout: timeoutMs, windowsHide: true, env: { LC_ALL: 'C' } }, (err) => resolve(err === null));
  });
}

/**
 * Make `files` (absolute paths of regular files already written and closed) durable. Returns
 * how: `syncfs` (one `sync -f` per file system), `fsync` (each file: fewer than
 * `minFilesForSyncfs` files, or syncfs unavailable), or `none` (no files).
 * A file that cannot be fsynced makes the promise reject, as a failed write would.
 */
export async function syncFiles(files: readonly string[], options: SyncOptions = {}): Promise<DurableMethod> {
  if (files.length === 0) return 'none';
  const few = files.length < (options.minFilesForSyncfs ?? 16);
  const bin = process.platform === 'linux' && !few ? (options.binaries ?? SYNC_BINARIES).find((b) => existsSync(b)) : undefined;
  if (bin !== undefined) {
    // One representative path per file system (device) the files are on.
    const byDevice = new Map<number, string>();
    let ok = true;
    for (const f of files) {
      try {
        const dev = statSync(f).dev;
        if (!byDevice.has(dev)) byDevice.set(dev, f);
      } catch {
        ok = false;
        break;
      }
    }
    if (ok) {
      const results = await Promise.all([...byDevice.values()].map((d) => runSyncF(bin, d, options.timeoutMs ?? 30_000)));
      if (results.every(Boolean)) return 'syncfs';
    }
  }
  await forEachLimit(files, IO_CONCURRENCY, (f) => fsyncFile(f));
  return 'fsync';
}
