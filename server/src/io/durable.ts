/**
 * The one way this server writes a file that must survive a crash: create it exclusively,
 * write it, fsync it, close it; to replace a file, do that to a side file and rename it over
 * the target (readers see the old bytes or the new ones, never a mix). A folder whose entries
 * changed is fsynced as well, so the renames themselves survive a power cut. The lock, the
 * backup, the restore, the staged files of a migration and every state file go through here.
 * A full disk is DISK_FULL naming the folder, and leaves no partial file.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ErrorCode, OnboardingError } from '../core/errors.js';

/**
 * A full disk (or quota) while writing into `dir` becomes DISK_FULL naming that folder; any other
 * error is returned as it is. The callers clean up what they started (a partial file here, a
 * partial backup in io/apply), so the message can say what to do.
 */
function diskFull(e: unknown, dir: string): unknown {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return e;
  return new OnboardingError(ErrorCode.DISK_FULL, `The disk holding ${dir} is full (${code}); the file being written there was removed.`, {
    next: `Free space on the disk that holds ${dir} (or raise the quota), then run the same command again.`,
    cause: e,
  });
}

/**
 * Create `abs` (it must not exist: EEXIST otherwise, unless `replace` removes a leftover
 * first), write `data`, set `mode` when given (exactly, whatever the umask), fsync, close.
 */
export async function writeDurable(abs: string, data: string | Uint8Array, opts: { mode?: number; replace?: boolean } = {}): Promise<void> {
  const create = () => fsp.open(abs, 'wx', opts.mode === undefined ? 0o644 : 0o600);
  let fh;
  try {
    fh = await create();
  } catch (e) {
    if (!opts.replace || (e as NodeJS.ErrnoException).code !== 'EEXIST') throw diskFull(e, path.dirname(abs));
    await fsp.rm(abs, { force: true });
    fh = await create();
  }
  try {
    await fh.writeFile(data);
    if (opts.mode !== undefined) await fh.chmod(opts.mode);
    await fh.sync();
  } catch (e) {
    // A write cut short (a full disk) leaves no partial file behind.
    await fh.close().catch(() => undefined);
    await fsp.rm(abs, { force: true });
    throw diskFull(e, path.dirname(abs));
  }
  await fh.close();
}

/**
 * Replace `abs` atomically: writeDurable a side file in the same folder (`tmp`, or a fresh
 * random name), then rename it over `abs`. The caller fsyncs the folder when the rename
 * itself must be durable.
 */
export async function atomicWriteFile(abs: string, data: string | Uint8Array, opts: { mode?: number; tmp?: string } = {}): Promise<void> {
  await fsp.mkdir(path.dirname(abs), { recursive: true }).catch((e: unknown) => {
    throw diskFull(e, path.dirname(abs));
  });
  const tmp = opts.tmp ?? `${abs}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeDurable(tmp, data, { ...(opts.mode !== undefined ? { mode: opts.mode } : {}), replace: opts.tmp !== undefined });
  try {
    await fsp.rename(tmp, abs);
  } catch (e) {
    await fsp.rm(tmp, { force: true });
    throw diskFull(e, path.dirname(abs));
  }
}

/** Best-effort fsync of a directory (makes renames durable on Linux). */
export async function fsyncDir(dir: string): Promise<void> {
  try {
    const fh = await fsp.open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    /* not supported on every platform */
  }
}

/**
 * Write `content` to `file` only if `file` does not exist (false when it does). The file appears
 * complete or not at all: the content is made durable in a private temp file first, then
 * hard-linked to `file`, so a process killed half-way leaves no empty or partial file behind.
 * The lock, the workspace id, every trace record and the per-user trace key (`mode` 0600) are
 * created this way.
 */
export async function createExclusive(file: string, content: string, opts: { mode?: number } = {}): Promise<boolean> {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeDurable(tmp, content, opts);
  try {
    await fsp.link(tmp, file);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EOPNOTSUPP') {
      // File systems without hard links: plain O_EXCL create (a reader may briefly see it empty).
      try {
        await writeDurable(file, content, opts);
        return true;
      } catch (e2) {
        if ((e2 as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw e2;
      }
    }
    throw e;
  } finally {
    await fsp.rm(tmp, { force: true });
  }
}
