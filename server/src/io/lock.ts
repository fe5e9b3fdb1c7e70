/**
 * One migration or rollback at a time per workspace, across processes.
 *
 * The lock is `.copilot-state/lock`, created with O_EXCL semantics: the record (pid, host,
 * start time, owner, a random token) is written to a private temp file first and then
 * hard-linked to `lock`, so nobody ever reads a half-written lock. A lock whose process is
 * gone on this host is stale and may be broken; breakers first take a short-lived guard
 * (`lock.breaking`, O_EXCL as well), then rename the stale lock aside and check that what
 * they moved is the very record they judged dead (rename-then-verify), so two breakers can
 * never both win and a fresh lock is never thrown away. The same lock, on another file and
 * waiting instead of refusing, serialises appends to a trace chain (withFileLock).
 */
import { promises as fsp, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { createExclusive } from './durable.js';
import { lockFile } from './layout.js';
import { assertStateWrite, unlessMissing } from './workspace.js';

export interface LockInfo {
  pid: number;
  hostname: string;
  startedAt: string;
  owner: string;
  token: string;
  /** Kernel start time of the owner process (Linux), to tell a reused pid from the owner. */
  procStart: string | null;
}

export interface LockHandle {
  readonly info: LockInfo;
  /** Remove the lock if it is still ours. Safe to call twice. */
  release(): Promise<void>;
}

/** A lock whose content cannot be parsed and is older than this is garbage from a crash. */
const GARBAGE_AGE_MS = 10_000;

export async function acquireLock(root: string, opts: { owner: string }): Promise<LockHandle> {
  await assertStateWrite(root, lockFile(root)); // safety: lock-write-recheck
  const got = await tryLock(lockFile(root), opts.owner);
  if ('release' in got) return got;
  throw busyError(got.holder);
}

/**
 * Run `fn` holding a short-lived lock on `file` (the same record and stale-lock rules as the
 * workspace lock), waiting with backoff while another live holder has it, at most `timeoutMs`.
 * Serialises appends to one trace chain across processes.
 */
export async function withFileLock<T>(file: string, fn: () => Promise<T>, opts: { timeoutMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  let delay = 2;
  for (;;) {
    const got = await tryLock(file, `append ${process.pid}`);
    if ('release' in got) {
      try {
        return await fn();
      } finally {
        await got.release();
      }
    }
    if (Date.now() > deadline) throw new Error(`Timed out waiting for lock ${file}`);
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 50);
  }
}

/** Take the lock `file` (breaking a stale one), or say who holds it. */
async function tryLock(file: string, owner: string): Promise<LockHandle | { holder: LockInfo | null }> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const info: LockInfo = {
    pid: process.pid,
    hostname: os.hostname(),
    startedAt: new Date().toISOString(),
    owner,
    token: randomBytes(12).toString('hex'),
    procStart: procStartTime(process.pid),
  };
  const content = `${JSON.stringify(info)}\n`;
  for (let attempt = 0; attempt < 8; attempt++) {
    if (await createExclusive(file, content)) return handle(file, info);
    const seen = await readRaw(file);
    if (seen === null) continue; // released meanwhile: try again
    const holder = parseLock(seen.raw);
    if (isStale(holder, seen.mtimeMs)) {
      await breakStale(file, seen.raw);
      continue;
    }
    return { holder };
  }
  return { holder: parseLock((await readRaw(file))?.raw ?? '') };
}

/** The current lock holder, or null when the workspace is not locked. */
export async function readLock(root: string): Promise<LockInfo | null> {
  const seen = await readRaw(lockFile(root));
  return seen ? parseLock(seen.raw) : null;
}

function handle(file: string, info: LockInfo): LockHandle {
  let released = false;
  return {
    info,
    async release() {
      if (released) return;
      released = true;
      const seen = await readRaw(file);
      // Only ever remove our own record (a lock is never rewritten in place, so the token decides).
      if (seen && parseLock(seen.raw)?.token === info.token) await fsp.rm(file, { force: true });
    },
  };
}

function busyError(holder: LockInfo | null): OnboardingError {
  const who = holder ? `pid ${holder.pid}${holder.hostname !== os.hostname() ? ` on ${holder.hostname}` : ''}, since ${holder.startedAt}` : 'lock being written';
  return new OnboardingError(
    ErrorCode.BUSY,
    `Another migration or rollback is running on this workspace (${who}). Nothing was changed. Wait for it to finish, then try again.`,
    {
      next: 'Wait for it to finish, then try again.',
      details: holder ? { pid: holder.pid, hostname: holder.hostname, since: holder.startedAt, owner: holder.owner } : {},
    },
  );
}

function readRaw(file: string): Promise<{ raw: string; mtimeMs: number } | null> {
  return unlessMissing(async () => {
    const [raw, st] = await Promise.all([fsp.readFile(file, 'utf8'), fsp.stat(file)]);
    return { raw, mtimeMs: st.mtimeMs };
  });
}

function parseLock(raw: string): LockInfo | null {
  try {
    const v = JSON.parse(raw) as Partial<LockInfo>;
    if (typeof v.pid !== 'number' || typeof v.hostname !== 'string' || typeof v.token !== 'string') return null;
    return {
      pid: v.pid,
      hostname: v.hostname,
      startedAt: typeof v.startedAt === 'string' ? v.startedAt : '?',
      owner: typeof v.owner === 'string' ? v.owner : '?',
      token: v.token,
      procStart: typeof v.procStart === 'string' ? v.procStart : null,
    };
  } catch {
    return null;
  }
}

function isStale(holder: LockInfo | null, mtimeMs: number): boolean {
  if (holder === null) return Date.now() - mtimeMs > GARBAGE_AGE_MS;
  // A lock from another machine (shared folder) is never broken automatically: we cannot see its process.
  if (holder.hostname !== os.hostname()) return false;
  if (holder.pid === process.pid) return false;
  if (!processAlive(holder.pid)) return true;
  // The pid is alive: it is the owner unless the kernel says it started at another time (pid reuse).
  const now = holder.procStart === null ? null : procStartTime(holder.pid);
  return now !== null && now !== holder.procStart;
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot); null where there is no procfs. */
function procStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

async function breakStale(file: string, raw: string): Promise<void> {
  const guard = `${file}.breaking`;
  const me = JSON.stringify({ pid: process.pid, hostname: os.hostname(), token: randomBytes(6).toString('hex'), startedAt: new Date().toISOString() });
  if (!(await createExclusive(guard, me))) {
    // Someone else is breaking it right now. A guard left by a breaker that died is removed.
    const g = await readRaw(guard);
    if (g && isStale(parseLock(g.raw), g.mtimeMs)) await renameIfSame(guard, g.raw);
    await new Promise((r) => setTimeout(r, 10));
    return;
  }
  try {
    await renameIfSame(file, raw);
  } finally {
    await fsp.rm(guard, { force: true });
  }
}

/** Remove `file` only if its content is still `raw`: rename it aside, then check what was moved. */
async function renameIfSame(file: string, raw: string): Promise<void> {
  const now = await readRaw(file);
  if (!now || now.raw !== raw) return;
  const aside = `${file}.stale-${process.pid}-${randomBytes(6).toString('hex')}`;
  try {
    await fsp.rename(file, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  const moved = await fsp.readFile(aside, 'utf8').catch(() => null);
  if (moved !== raw) {
    // We moved a fresh lock taken in between: put it back (link fails only if yet another lock exists).
    await fsp.link(aside, file).catch(() => undefined);
  }
  await fsp.rm(aside, { force: true });
}
