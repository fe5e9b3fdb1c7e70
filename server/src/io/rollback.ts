/**
 * Rollback of a finished migration from its backup, on a human's request: under the
 * workspace lock, after finishing any interrupted work, the backup and its manifest are
 * checked against the migration's plan (io/migration-record) before any file is touched, the
 * files edited since the migration are saved beside the backup, the journal says
 * `rolling-back` (so a crash is finished by recovery), and then the undo runs with its own
 * crash points (rb-*). The rollback is recorded in onboarding.json before the journal is
 * cleared, so a kill between the two is finished and recorded by recovery.
 */
import path from 'node:path';
import { JOURNAL_FORMAT } from '../schemas/journal.js';
import type { Manifest } from '../schemas/manifest.js';
import { crashFromEnv, type CrashHook } from './crash-points.js';
import { atomicWriteFile, fsyncDir } from './durable.js';
import { clearJournal, writeJournal } from './journal.js';
import { editedDir, savedCopyPath } from './layout.js';
import { acquireLock } from './lock.js';
import { loadMigration } from './migration-record.js';
import { recordRolledBack, recoverLocked } from './recovery.js';
import { hashFile, lstatOrNull, undo, type ProgressHook, type UndoResult } from './undo.js';
import { assertStateWrite, IO_CONCURRENCY, mapLimit, readRegularFile, resolveInside, unlessMissing } from './workspace.js';

export interface RollbackResult extends UndoResult {
  migrationId: string;
  /** Workspace-relative paths of the copies of files edited since the migration, saved before they were restored or removed. */
  saved: string[];
}

/** Undo a migration: save the files edited since, restore every backed-up file byte for byte, remove what it created. */
export async function rollback(root: string, migrationId: string, opts: { crashAt?: CrashHook; onProgress?: ProgressHook; now?: Date } = {}): Promise<RollbackResult> {
  const crash = opts.crashAt ?? crashFromEnv;
  const lock = await acquireLock(root, { owner: `rollback ${migrationId}` });
  try {
    crash('rb-lock-acquired');
    await recoverLocked(root);
    const { manifest, contents } = await loadMigration(root, migrationId);
    crash('rb-backup-verified');
    const saved = await saveEditedFiles(root, manifest, await editedSinceMigration(root, manifest));
    const total = manifest.files.length + manifest.creates.length + 1;
    let done = 0;
    const progress = (step: string) => opts.onProgress?.(step, ++done, total);
    const previous = new Map(manifest.files.map((f) => [f.path, f.sha256]));
    const now = new Date().toISOString();
    await writeJournal(root, {
      format: JOURNAL_FORMAT,
      kind: 'rollback',
      phase: 'rolling-back',
      migrationId,
      planId: manifest.planId,
      pid: process.pid,
      startedAt: now,
      updatedAt: now,
      ops: manifest.written.map((w) => ({ op: w.op, path: w.path, previousSha256: previous.get(w.path) ?? null, sha256: w.sha256 })),
      createdDirs: manifest.createdDirs,
    });
    crash('rb-journal-written');
    const res = await undo(root, manifest, contents, { crash, removeEdited: true, progress });
    await recordRolledBack(root, manifest, opts.now ?? new Date());
    crash('rb-state-recorded');
    await clearJournal(root);
    crash('rb-journal-cleared');
    progress('done');
    return { migrationId, ...res, saved };
  } finally {
    await lock.release();
  }
}

/**
 * Created or modified files whose content is no longer what the migration wrote, and deleted
 * paths that exist again: a rollback would discard those edits, so callers list them first.
 */
export async function editedSinceMigration(root: string, manifest: Manifest): Promise<string[]> {
  const edited = await mapLimit(manifest.written, IO_CONCURRENCY, async (w) => {
    const abs = resolveInside(root, w.path);
    const st = await lstatOrNull(abs);
    if (w.op === 'delete') return st !== null;
    return !st?.isFile() || st.size !== w.size || (await hashFile(abs)) !== w.sha256;
  });
  return manifest.written.filter((_, k) => edited[k]).map((w) => w.path);
}

/**
 * Security (nothing a person wrote is lost): copy every edited file that is a regular file to
 * `backups/<id>.edited/<path>`, durably, before the rollback restores or removes it. Each copy
 * is written only after the state folder is re-checked (assertStateWrite). Returns the
 * workspace-relative paths of the copies.
 */
async function saveEditedFiles(root: string, manifest: Manifest, edited: readonly string[]): Promise<string[]> {
  const saved: string[] = [];
  const dirs = new Set<string>();
  for (const rel of edited) {
    const bytes = await unlessMissing(() => readRegularFile(resolveInside(root, rel)));
    if (!Buffer.isBuffer(bytes)) continue; // absent, a folder (kept by the undo) or not a regular file
    const dest = path.join(editedDir(root, manifest.migrationId), ...rel.split('/'));
    await assertStateWrite(root, dest); // safety: rollback-saved-copy-confined
    await atomicWriteFile(dest, bytes);
    dirs.add(path.dirname(dest));
    saved.push(savedCopyPath(manifest.migrationId, rel));
  }
  for (const d of dirs) await fsyncDir(d);
  return saved;
}
