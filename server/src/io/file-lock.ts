import { promises as fsp } from 'node:fs';
import os from 'node:os';

/**
 * A short-lived cross-process mutex on a lock file (O_EXCL). Used to serialise appends
 * to a trace chain. A lock left by a dead process on this host is broken.
 */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, opts: { timeoutMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  const token = `${process.pid}@${os.hostname()}:${Date.now()}:${Math.random().toString(36).slice(2)}`;
  let delay = 2;
  for (;;) {
    try {
      const fh = await fsp.open(lockPath, 'wx');
      try {
        await fh.writeFile(token);
      } finally {
        await fh.close();
      }
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (await breakIfStale(lockPath)) continue;
      if (Date.now() > deadline) throw new Error(`Timed out waiting for lock ${lockPath}`);
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 50);
    }
  }
  try {
    return await fn();
  } finally {
    await fsp.rm(lockPath, { force: true });
  }
}

async function breakIfStale(lockPath: string): Promise<boolean> {
  let content: string;
  try {
    content = await fsp.readFile(lockPath, 'utf8');
  } catch {
    return true; // vanished: try again
  }
  const m = /^(\d+)@([^:]*):/.exec(content);
  if (!m) {
    // Being written right now, or garbage. Garbage older than 10 s is stale.
    try {
      const st = await fsp.stat(lockPath);
      if (Date.now() - st.mtimeMs > 10_000) {
        await fsp.rm(lockPath, { force: true });
        return true;
      }
    } catch {
      return true;
    }
    return false;
  }
  const pid = Number(m[1]);
  if (m[2] !== os.hostname() || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') return false;
  }
  // Dead owner: break it only if it is still the same lock we read.
  const stale = `${lockPath}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    await fsp.rename(lockPath, stale);
  } catch {
    return true;
  }
  const moved = await fsp.readFile(stale, 'utf8').catch(() => '');
  if (moved !== content) {
    // We moved a fresh lock taken by someone else in between: put it back if we can.
    await fsp.link(stale, lockPath).catch(() => undefined);
  }
  await fsp.rm(stale, { force: true });
  return true;
}
