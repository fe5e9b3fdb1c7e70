/**
 * The workspace as a place to read and write: workspace-relative paths resolved inside it,
 * the one path guard against symlinks that lead out of it, the one bounded-concurrency helper
 * for bulk file-system work, and a regular-file reader that never blocks on a FIFO.
 * Security: every path a tool reads or writes passes resolveInside, and every path written,
 * restored or removed by a migration passes a RealInsideGuard first.
 */
import { accessSync, closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, promises as fsp, readFileSync, readSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { STATE_DIR, stateDir } from './layout.js';

/**
 * Resolve a workspace-relative POSIX path to an absolute path, refusing anything that
 * escapes the workspace (`..`, absolute paths, NUL bytes). Symlinks are checked by callers
 * that read or write (see RealInsideGuard).
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
 * The one containment test of the server: is the real path `real` the folder `realParent`
 * itself or inside it? Both must already be real paths (symlinks resolved). Every check that
 * a real location stays inside the workspace or the state folder calls this: RealInsideGuard,
 * assertStateDirInside, the snapshot's source reads and the trace resources.
 */
export function isWithin(realParent: string, real: string): boolean {
  const r = path.relative(realParent, real);
  return r === '' || (r !== '..' && !r.startsWith(`..${path.sep}`) && !path.isAbsolute(r));
}

type Verdict = 'inside' | 'outside' | 'missing';

/**
 * The path guard: refuses a path whose real location (after following symlinks of every
 * existing ancestor; an absent path is judged by its nearest existing ancestor) is outside
 * the workspace's real location. The workspace's real location is resolved once and every
 * folder's verdict remembered, so one guard serves a whole operation over many paths (a
 * migration, a rollback) at one realpath per folder plus one per file. Make a new one per
 * operation: it remembers what the disk looked like when it was asked.
 */
export class RealInsideGuard {
  private realRoot: Promise<string> | undefined;
  private readonly dirs = new Map<string, Promise<Verdict>>();

  constructor(private readonly root: string) {}

  /**
   * Refuse `abs` when its real location is outside the workspace. Returns false when a folder
   * on its way did not exist when it was checked (so neither did `abs`), true otherwise.
   */
  async check(abs: string): Promise<boolean> {
    const parent = path.dirname(abs);
    const pv = parent === abs ? 'inside' : await this.dir(parent);
    // A folder that does not exist holds nothing: the nearest existing ancestor decided.
    if (pv === 'missing') return false;
    let v: Verdict;
    try {
      v = await this.verdictOf(await fsp.realpath(abs));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      v = pv; // absent: its folder (the nearest existing ancestor) decides
    }
    if (v === 'outside') throw outsideError(this.root, abs);
    return true;
  }

  private async verdictOf(real: string): Promise<Verdict> {
    this.realRoot ??= fsp.realpath(this.root);
    return isWithin(await this.realRoot, real) ? 'inside' : 'outside';
  }

  private dir(abs: string): Promise<Verdict> {
    let v = this.dirs.get(abs);
    if (!v) {
      v = (async (): Promise<Verdict> => {
        try {
          return await this.verdictOf(await fsp.realpath(abs));
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
          const parent = path.dirname(abs);
          if (parent === abs) return 'missing';
          return (await this.dir(parent)) === 'outside' ? 'outside' : 'missing';
        }
      })();
      this.dirs.set(abs, v);
    }
    return v;
  }
}

function outsideError(root: string, abs: string): OnboardingError {
  return new OnboardingError(ErrorCode.PATH_OUTSIDE_WORKSPACE, `${path.relative(root, abs) || abs} resolves outside the workspace (through a symlink).`);
}

/**
 * Run `fn` over `items`, at most `limit` at a time (file-system calls then overlap in the
 * thread pool instead of waiting for each other). `after(i)` runs in index order, as soon as
 * items 0..i have all finished. On a failure no new item starts, every started one is waited
 * for, then the first error is thrown: nothing is left running behind the caller's back.
 */
export async function forEachLimit<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
  after?: (index: number) => void,
): Promise<void> {
  const finished = new Array<boolean>(items.length).fill(false);
  let next = 0;
  let reported = 0;
  let error: { e: unknown } | null = null;
  const worker = async () => {
    while (error === null && next < items.length) {
      const i = next++;
      try {
        await fn(items[i]!, i);
      } catch (e) {
        error ??= { e };
        return;
      }
      finished[i] = true;
      while (error === null && reported < items.length && finished[reported]) {
        const k = reported++;
        try {
          after?.(k);
        } catch (e) {
          error ??= { e };
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  if (error !== null) throw (error as { e: unknown }).e;
}

/** forEachLimit collecting each item's result, in item order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  await forEachLimit(items, limit, async (item, i) => {
    out[i] = await fn(item, i);
  });
  return out;
}

/** What readRegularFile found instead of a regular file's bytes. */
export type NotRead = { notRegular: true } | { tooLarge: number };

/**
 * Read a regular file without ever blocking on something that is not one: the file is opened
 * with O_NONBLOCK (a FIFO, even one swapped in after a folder listing, opens at once instead of
 * waiting for a writer) and, unless `followSymlinks`, O_NOFOLLOW (a symlink is not regular);
 * then fstat on that very descriptor decides, so the kind and the size that are checked are
 * those of what is read. Every bulk read of the server goes through here or readRegularFileSync (sources, plans, traces,
 * questions, migrate's on-disk check).
 * Other errors (ENOENT, EACCES, …) are thrown as fs throws them.
 */
export async function readRegularFile(abs: string, opts: { maxBytes?: number; followSymlinks?: boolean } = {}): Promise<Buffer | NotRead> {
  const maxBytes = opts.maxBytes ?? Infinity;
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(abs, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (opts.followSymlinks ? 0 : (fsConstants.O_NOFOLLOW ?? 0)));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') return { notRegular: true };
    throw e;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return { notRegular: true };
    if (st.size > maxBytes) return { tooLarge: st.size };
    // Read up to a short read (the end), at most maxBytes + 1 bytes: a file that grows is still capped.
    const chunks: Buffer[] = [];
    let total = 0;
    for (let want = st.size + 1; want > 0; want = Math.min(64 * 1024, maxBytes + 1 - total)) {
      const chunk = Buffer.alloc(want);
      const { bytesRead } = await handle.read(chunk, 0, want, total);
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (bytesRead < want) break;
    }
    if (total > maxBytes) return { tooLarge: Math.max(total, (await handle.stat()).size) };
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}

/**
 * readRegularFile without the thread pool: open, fstat, read and close as system calls, the same
 * flags and checks. For small files read one after the other (question files, instruction
 * sources), where four thread-pool round trips per file cost more than the reads.
 */
export function readRegularFileSync(abs: string, opts: { maxBytes?: number } = {}): Buffer | NotRead {
  const maxBytes = opts.maxBytes ?? Infinity;
  let fd: number;
  try {
    fd = openSync(abs, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOFOLLOW ?? 0));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') return { notRegular: true };
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { notRegular: true };
    if (st.size > maxBytes) return { tooLarge: st.size };
    // Read up to a short read (the end), at most maxBytes + 1 bytes: a file that grows is still capped.
    const chunks: Buffer[] = [];
    let total = 0;
    for (let want = st.size + 1; want > 0; want = Math.min(64 * 1024, maxBytes + 1 - total)) {
      const chunk = Buffer.allocUnsafe(want);
      const bytesRead = readSync(fd, chunk, 0, want, total);
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (bytesRead < want) break;
    }
    if (total > maxBytes) return { tooLarge: Math.max(total, fstatSync(fd).size) };
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** `fn()`, or null when the path it reads does not exist (ENOENT); other errors are thrown. */
export async function unlessMissing<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** How many file-system calls a bulk step keeps in flight (the thread pool has 4 threads by default). */
export const IO_CONCURRENCY = 16;

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
  assertStateDirInside(root);
}

/**
 * The survey's stricter check (CLI analyze and propose), before anything is read or written: the
 * workspace exists, is a folder, and can be listed and entered. `next` is the hint each refusal carries.
 */
export function assertSurveyableFolder(root: string, next: string): void {
  let st;
  try {
    st = statSync(root);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'cannot be reached (permission denied)' : `cannot be read (${code ?? String(e)})`;
    throw new OnboardingError(ErrorCode.WORKSPACE_INVALID, `The workspace ${root} ${why}.`, { next });
  }
  if (!st.isDirectory()) throw new OnboardingError(ErrorCode.WORKSPACE_INVALID, `The workspace ${root} is ${st.isFile() ? 'a file, not a folder' : 'not a folder'}.`, { next });
  try {
    accessSync(root, fsConstants.R_OK | fsConstants.X_OK);
  } catch {
    throw new OnboardingError(ErrorCode.WORKSPACE_INVALID, `The workspace ${root} cannot be read (permission denied).`, { next });
  }
}

/** A list file a person wrote (e.g. --workspaces-from), as text; throws the file system's error as is. */
export function readListFile(abs: string): string {
  return readFileSync(abs, 'utf8');
}

/**
 * Security: refuse a workspace whose `.copilot-state/` (or an entry directly in it: a chain
 * folder, plans/, backups/, onboarding.json) resolves outside the workspace's real location,
 * so plans, backups, traces and state are never read from or written to another folder through
 * a symlink. Links that stay inside keep working; a dangling link is refused (its target
 * cannot be checked). Every entry point (MCP tools and resources, CLI commands) resolves its
 * workspace through assertWorkspaceFolder, which calls this.
 */
function assertStateDirInside(root: string): void {
  const dir = stateDir(root);
  try {
    lstatSync(dir);
  } catch {
    return; // no state folder yet: it will be created as a plain folder
  }
  const realRoot = realpathSync(root);
  const refuse = (what: string, why: string) =>
    new OnboardingError(ErrorCode.PATH_OUTSIDE_WORKSPACE, `${what} ${why}; nothing is read or written there.`, {
      next: `Replace the symlink ${what} with a folder inside the workspace (move its contents back), then try again.`,
    });
  const check = (abs: string, what: string) => {
    let real: string;
    try {
      real = realpathSync(abs);
    } catch {
      throw refuse(what, 'is a symlink whose target does not exist');
    }
    if (real === realRoot || !isWithin(realRoot, real)) throw refuse(what, `resolves outside the workspace (to ${real})`);
  };
  check(dir, STATE_DIR);
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return; // not a folder or unreadable: the operation that needs it reports that
  }
  for (const n of names) if (lstatSync(path.join(dir, n), { throwIfNoEntry: false })?.isSymbolicLink()) check(path.join(dir, n), `${STATE_DIR}/${n}`);
}

/**
 * Security: the re-check right before a write into the state folder (a journal, a backup, an
 * edited file saved before a rollback, the state record, a plan): the state folder and its
 * entries still resolve inside the workspace (assertStateDirInside), and the folder `abs` is
 * written in (its nearest existing ancestor) resolves inside the state folder. A human's answer
 * can take minutes; `.copilot-state` or `.copilot-state/backups` swapped for a symlink while a
 * form was open is refused here, before the first byte is written outside.
 */
export async function assertStateWrite(root: string, abs: string): Promise<void> {
  assertStateDirInside(root);
  const realState = await unlessMissing(() => fsp.realpath(stateDir(root)));
  if (realState === null) return; // created as a plain folder by the write itself
  let dir = path.dirname(abs);
  let real: string | null = null;
  while (real === null) {
    real = await unlessMissing(() => fsp.realpath(dir));
    if (real === null) {
      if (path.dirname(dir) === dir) return;
      dir = path.dirname(dir);
    }
  }
  if (!isWithin(realState, real)) {
    throw new OnboardingError(ErrorCode.PATH_OUTSIDE_WORKSPACE, `${path.relative(root, abs) || abs} resolves outside ${STATE_DIR}/ (to ${real}); nothing is written there.`, {
      next: `Replace the symlink in ${STATE_DIR}/ with a folder inside the workspace (move its contents back), then try again.`,
    });
  }
}
