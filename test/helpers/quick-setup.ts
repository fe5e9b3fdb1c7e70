/**
 * Vitest global setup of `npm run test:quick` (vitest.quick.config.ts): the temp workspaces go to a
 * RAM-backed folder when the machine has one with room. The code under test fsyncs every file it
 * writes and every folder it renames in (io/durable.ts); on a disk each fsync waits for the device
 * (5 ms and more on a loaded machine), on tmpfs it returns at once. The same system calls run in
 * the same order either way: only the wait for the device goes. `npm test` keeps the disk.
 *
 * TMPDIR is set here, in vitest's main process before any worker starts, so that os.tmpdir() in
 * every worker (thread or process) sees it. The folder is removed when the run ends.
 */
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import path from 'node:path';

const RAM = '/dev/shm';
const ROOM = 2 * 1024 ** 3; // the largest quick tests write tens of MB; leave the machine its memory

function ramFolder(): string | null {
  try {
    const s = statfsSync(RAM);
    // TMPFS_MAGIC: only a RAM file system, never a disk that happens to be mounted there.
    if (s.type !== 0x01021994 || s.bavail * s.bsize < ROOM) return null;
    return mkdtempSync(path.join(RAM, 'copilot-onboarding-quick-'));
  } catch {
    return null;
  }
}

export default function setup(): (() => void) | undefined {
  if (process.env.COPILOT_ONBOARDING_QUICK_DISK === '1') return undefined;
  const dir = ramFolder();
  if (!dir) return undefined;
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(dir, { recursive: true, force: true });
  };
}
