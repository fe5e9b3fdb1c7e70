/**
 * Putting a workspace back as it was before a migration, from the migration's verified
 * backup: restore every backed-up file byte for byte, remove what the migration created.
 * Used by a failed migrate (undoFailed), by rollback, and by recovery after a crash, so every
 * step is idempotent: running it again after an interruption finishes the same job.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../core/canonical.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import type { Journal } from '../schemas/journal.js';
import type { Manifest } from '../schemas/manifest.js';
import { backupRelPaths, backupsDir, loadBackup, restoreContents } from './backup.js';
import { noCrash, type CrashHook } from './crash-points.js';
import { fsyncDir } from './durable.js';
import { clearJournal, sweepSidecars, writeJournal } from './journal.js';
import { assertStateWrite, forEachLimit, IO_CONCURRENCY, RealInsideGuard, resolveInside, unlessMissing } from './workspace.js';

export type ProgressHook = (step: string, done: number, total: number) => void;

/** What an undo did, path by path (workspace-relative). */
export interface UndoResult {
  /** Backed-up files written back. */
  restored: string[];
  /** Backed-up files that already held their original bytes. */
  unchanged: string[];
  /** Created files removed. */
  removed: string[];
  /** Created folders removed. */
  removedDirs: string[];
  /** Created paths left in place (a folder now, or changed by someone during an interrupted migration). */
  kept: string[];
}

/** lstat, or null when the path does not exist. */
export const lstatOrNull = (abs: string) => unlessMissing(() => fsp.lstat(abs));

/** SHA-256 of a file's bytes, or null when it does not exist. */
export const hashFile = (abs: string) => unlessMissing(async () => sha256Hex(await fsp.readFile(abs)));

/** Remove a migration's backup files (only for a migration that never got past its backup); PATH_OUTSIDE_WORKSPACE, removing nothing, when `backups/` resolves outside the state folder. */
export async function discardBackup(root: string, migrationId: string): Promise<void> {
  const dir = backupsDir(root);
  const mine = [`${migrationId}.tar.gz`, `${migrationId}.manifest.json`, `.${migrationId}.tar.gz.tmp`];
  // A clean-up removes only inside the state folder: `backups/` swapped for a symlink out is refused, nothing removed there.
  await assertStateWrite(root, path.join(dir, mine[0]!)); // safety: discard-backup-confined
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (mine.includes(name) || (name.startsWith(`${migrationId}.manifest.json.`) && name.endsWith('.tmp'))) await fsp.rm(path.join(dir, name), { force: true });
  }
  await fsyncDir(dir);
}

/**
 * Put the workspace back as it was before a migration, from verified backup contents.
 * Idempotent: files that already hold their original bytes are left alone, absent created
 * files are skipped. `removeEdited` false (automatic recovery, no human asked) keeps a
 * created path whose content is not what the migration wrote.
 */
export async function undo(
  root: string,
  manifest: Manifest,
  contents: Map<string, Buffer>,
  opts: { crash: CrashHook; removeEdited: boolean; progress?: (step: string) => void },
): Promise<UndoResult> {
  const { crash } = opts;
  const { restored, unchanged } = await restoreContents(root, manifest, contents, {
    onFile: (rel, i) => {
      crash(`rb-restored-${i}`);
      opts.progress?.(`restore ${rel}`);
    },
  });
  const written = new Map(manifest.written.map((w) => [w.path, w]));
  // Never unlink through a symlinked folder that leads outside the workspace: every folder
  // is checked before the first removal. Then the removals, overlapped (an unlink can cost a
  // fraction of a millisecond of journal work; several share it), rb-removed-N in order.
  const guard = new RealInsideGuard(root);
  for (const rel of manifest.creates) await guard.check(path.dirname(resolveInside(root, rel))); // safety: undo-unlink-inside-workspace
  const fate = new Array<'removed' | 'kept' | 'absent'>(manifest.creates.length);
  const touched = new Set<string>();
  await forEachLimit(
    manifest.creates,
    IO_CONCURRENCY,
    async (rel, k) => {
      const abs = resolveInside(root, rel);
      const st = await lstatOrNull(abs);
      if (!st) fate[k] = 'absent';
      else if (st.isDirectory()) fate[k] = 'kept';
      else if (!opts.removeEdited && (!st.isFile() || (await hashFile(abs)) !== written.get(rel)?.sha256)) fate[k] = 'kept'; // safety: undo-keep-edited-created
      else {
        await fsp.unlink(abs).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== 'ENOENT') throw e;
        });
        fate[k] = 'removed';
        touched.add(path.dirname(abs));
      }
    },
    (k) => {
      crash(`rb-removed-${k + 1}`);
      opts.progress?.(`remove ${manifest.creates[k]}`);
    },
  );
  const removed = manifest.creates.filter((_, k) => fate[k] === 'removed');
  const kept = manifest.creates.filter((_, k) => fate[k] === 'kept');
  await sweepSidecars(root, [...manifest.written.map((w) => w.path), ...manifest.files.map((f) => f.path)]);
  crash('rb-sidecars-swept');
  const removedDirs: string[] = [];
  for (const d of [...manifest.createdDirs].reverse()) {
    const abs = resolveInside(root, d);
    try {
      await fsp.rmdir(abs);
      removedDirs.push(d);
      touched.add(path.dirname(abs));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOTDIR') throw e;
    }
  }
  await Promise.all([...touched].map((d) => fsyncDir(d)));
  crash('rb-dirs-removed');
  return { restored, unchanged, removed, removedDirs, kept };
}

/** A migration failed after it began writing: undo from its backup (journal says so first, so a crash here is finished later). */
export async function undoFailed(root: string, manifest: Manifest, journal: Journal): Promise<void> {
  try {
    await writeJournal(root, { ...journal, phase: 'rolling-back', createdDirs: manifest.createdDirs, updatedAt: new Date().toISOString() });
    const loaded = await loadBackup(root, manifest);
    if (!loaded.ok) throw new Error(loaded.reason);
    await undo(root, manifest, loaded.contents, { crash: noCrash, removeEdited: false });
    await clearJournal(root);
  } catch (e) {
    throw new OnboardingError(
      ErrorCode.INTERNAL,
      `Migration ${manifest.migrationId} failed and could not be undone automatically (${(e as Error).message}). The journal is kept; the next start retries the undo.`,
      { next: `Restart the server or run \`copilot-onboarding status\`; the backup is ${backupRelPaths(manifest.migrationId).archive}.`, cause: e },
    );
  }
}
