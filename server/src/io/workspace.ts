import { promises as fsp, statSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ErrorCode, OnboardingError } from '../core/errors.js';

export const STATE_DIR = '.copilot-state';

/** Absolute path of the state folder of a workspace. */
export function stateDir(root: string): string {
  return path.join(root, STATE_DIR);
}

/**
 * Resolve a workspace-relative POSIX path to an absolute path, refusing anything that
 * escapes the workspace (`..`, absolute paths, NUL bytes). Symlinks are checked by callers
 * that read or write (see assertRealInside).
 */
export function resolveInside(root: string, rel: string): string {
  if (rel.includes('\0')) throw new OnboardingError(ErrorCode.PATH_OUTSIDE_WORKSPACE, `Path contains a NUL byte: ${JSON.stringify(rel)}`);
  if (path.isAbsolute(rel) || /^[a-zA-Z]:/.test(rel)) {
    throw new OnboardingError(ErrorCode.PATH_OUTSIDE_WORKSPACE, `Absolute path refused: ${rel}`);
  }
  const abs = path.resolve(root, rel);
  const relBack = path.relative(path.resolve(root), abs);
  if (relBack === '' || relBack.startsWith('..') || path.isAbsolute(relBack)) {
    throw new OnboardingError(ErrorCode.PATH_OUTSIDE_WORKSPACE, `Path escapes the workspace: ${rel}`);
  }
  return abs;
}

/**
 * Refuse a path whose real location (after following symlinks of every existing ancestor)
 * is outside the workspace's real location.
 */
export async function assertRealInside(root: string, abs: string): Promise<void> {
  const realRoot = await fsp.realpath(root);
  let probe = abs;
  // Walk up to the nearest existing ancestor.
  for (;;) {
    try {
      const real = await fsp.realpath(probe);
      const rel = path.relative(realRoot, real);
      if (rel.startsWith('..') || path.isAbsolute(rel)) {
        throw new OnboardingError(
          ErrorCode.PATH_OUTSIDE_WORKSPACE,
          `${path.relative(root, abs) || abs} resolves outside the workspace (through a symlink).`,
        );
      }
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      const parent = path.dirname(probe);
      if (parent === probe) return;
      probe = parent;
    }
  }
}

/** Write a file atomically: temp file in the same folder, fsync, rename. */
export async function atomicWriteFile(abs: string, data: string | Uint8Array, mode?: number): Promise<void> {
  await fsp.mkdir(path.dirname(abs), { recursive: true });
  const tmp = `${abs}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fh = await fsp.open(tmp, 'wx', mode ?? 0o644);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await fsp.rename(tmp, abs);
  } catch (e) {
    await fsp.rm(tmp, { force: true });
    throw e;
  }
}

/** Create a file that must not exist yet (O_EXCL), fsynced. Returns false if it exists. */
export async function writeFileExclusive(abs: string, data: string | Uint8Array): Promise<boolean> {
  await fsp.mkdir(path.dirname(abs), { recursive: true });
  let fh;
  try {
    fh = await fsp.open(abs, 'wx', 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return true;
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

export function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

/** The workspace must be an existing folder; otherwise nothing is asked or written. */
export function assertWorkspaceFolder(root: string): void {
  const next = 'Point --workspace, COPILOT_ONBOARDING_WORKSPACE or the client root at the repository folder.';
  let st;
  try {
    st = statSync(root);
  } catch {
    throw new OnboardingError(ErrorCode.WORKSPACE_INVALID, `The workspace folder ${root} does not exist.`, { next });
  }
  if (!st.isDirectory()) throw new OnboardingError(ErrorCode.WORKSPACE_INVALID, `The workspace ${root} is not a folder.`, { next });
}
