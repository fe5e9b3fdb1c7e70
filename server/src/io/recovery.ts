/**
 * Finishing whatever a killed process left behind, read from the journal. Run at server
 * start, in status and before each tool: `backing-up` or `applying` → the workspace is put
 * back exactly as before from the verified backup; `done` → side files are removed and the
 * migration is recorded; `rolling-back` → the rollback is finished and recorded. A migration
 * still running in another live process is left alone ('busy').
 *
 * The state record (onboarding.json) is written before the journal is cleared, by migrate,
 * rollback and recovery alike, so a kill at any moment leaves either a journal that recovery
 * finishes and records, or a record that already matches the files: status, rollback and
 * the CLI never disagree with the tree.
 */
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import type { Journal, JournalOp } from '../schemas/journal.js';
import type { Manifest } from '../schemas/manifest.js';
import { loadBackup, readManifest } from './backup.js';
import { noCrash } from './crash-points.js';
import { clearJournal, readJournal, sweepSidecars } from './journal.js';
import { backupRelPaths, backupsDir } from './layout.js';
import { loadState, updateState } from './state.js';
import { acquireLock, processAlive, readLock } from './lock.js';
import { discardBackup, hashFile, lstatOrNull, undo } from './undo.js';
import { resolveInside } from './workspace.js';

type RecoveryStatus = 'none' | 'clean' | 'rolled-back' | 'completed-rollback' | 'busy';

export interface RecoveryReport {
  /**
   * none: nothing was in progress. clean: a migration had finished; leftovers removed (workspace as migrated).
   * rolled-back: an interrupted migration was undone (workspace exactly as before it).
   * completed-rollback: an interrupted rollback was finished. busy: another process is running one right now.
   */
  status: RecoveryStatus;
  migrationId?: string;
  message: string;
}

/** Is every target still exactly as before the migration (per the journal)? Used when the backup is unusable. */
async function inPreState(root: string, ops: JournalOp[]): Promise<boolean> {
  for (const op of ops) {
    const abs = resolveInside(root, op.path);
    if (op.op === 'create') {
      if (await lstatOrNull(abs)) return false;
    } else if ((await hashFile(abs)) !== op.previousSha256) return false;
  }
  return true;
}

/** Recovery with the lock held. */
export async function recoverLocked(root: string): Promise<RecoveryReport> {
  const j = await readJournal(root);
  if (!j) return { status: 'none', message: 'No interrupted migration or rollback.' };
  const id = j.migrationId;
  const paths = j.ops.map((o) => o.path);
  if (j.kind === 'migrate' && j.phase === 'done') {
    await sweepSidecars(root, paths);
    await recordMigrated(root, await readManifest(root, id), new Date(j.updatedAt));
    await clearJournal(root);
    return { status: 'clean', migrationId: id, message: `Migration ${id} had finished and passed its check before it was interrupted; its leftover temporary files were removed. The workspace is as migrated.` };
  }
  if (j.kind === 'migrate' && j.phase === 'backing-up') {
    await sweepSidecars(root, paths);
    await discardBackup(root, id);
    await clearJournal(root);
    return { status: 'rolled-back', migrationId: id, message: `Interrupted migration ${id} was rolled back; the workspace is exactly as before (it stopped while making its backup, before any file was changed).` };
  }
  let manifest: Manifest | null = null;
  let reason = '';
  try {
    manifest = await readManifest(root, id);
    const loaded = await loadBackup(root, manifest);
    if (loaded.ok) {
      const res = await undo(root, manifest, loaded.contents, { crash: noCrash, removeEdited: j.kind === 'rollback' });
      if (j.kind === 'rollback') await recordRolledBack(root, manifest, new Date());
      await clearJournal(root);
      const keptNote = res.kept.length ? ` Left in place because they were changed by someone else: ${res.kept.join(', ')}.` : '';
      if (j.kind === 'migrate') {
        return { status: 'rolled-back', migrationId: id, message: `Interrupted migration ${id} was rolled back; the workspace is exactly as before.${keptNote}` };
      }
      return { status: 'completed-rollback', migrationId: id, message: `An interrupted rollback of migration ${id} was completed; the workspace is as it was before that migration.${keptNote}` };
    }
    reason = loaded.reason;
  } catch (e) {
    if (!(e instanceof OnboardingError) || (e.code !== ErrorCode.BACKUP_CORRUPT && e.code !== ErrorCode.BACKUP_MISSING)) throw e;
    reason = e.message;
  }
  // The backup is unusable. If nothing had been changed yet, there is nothing to undo.
  if (j.kind === 'migrate' && (await inPreState(root, j.ops))) {
    await sweepSidecars(root, paths);
    await clearJournal(root);
    return { status: 'rolled-back', migrationId: id, message: `Interrupted migration ${id} was rolled back; the workspace is exactly as before (no file had been changed yet).` };
  }
  throw new OnboardingError(
    ErrorCode.BACKUP_CORRUPT,
    `${j.kind === 'migrate' ? `Migration ${id} was interrupted` : `A rollback of migration ${id} was interrupted`} and must be finished from its backup, but the backup failed its check (${reason}). The journal is kept; no further file was touched.`,
    { next: 'Restore .copilot-state/backups/ from a copy and retry, or restore the instruction files from version control and then delete .copilot-state/journal.json.' },
  );
}

/**
 * Run at server start and before each tool: undo an interrupted migration, finish an
 * interrupted rollback, or clean up after a finished one. Never waits for, or interferes
 * with, a migration running in another live process ('busy').
 */
export async function recoverInterrupted(root: string): Promise<RecoveryReport> {
  const j = await readJournal(root);
  if (!j) return { status: 'none', message: 'No interrupted migration or rollback.' };
  let lock;
  try {
    lock = await acquireLock(root, { owner: 'recovery' });
  } catch (e) {
    if (e instanceof OnboardingError && e.code === ErrorCode.BUSY) {
      return { status: 'busy', migrationId: j.migrationId, message: `A ${j.kind === 'migrate' ? 'migration' : 'rollback'} (${j.migrationId}) is running in another process; it was left alone.` };
    }
    throw e;
  }
  try {
    return await recoverLocked(root);
  } finally {
    await lock.release();
  }
}

/** Read-only: what recoverInterrupted would do now, or null when nothing is pending. */
export async function pendingRecovery(root: string): Promise<string | null> {
  let j: Journal | null;
  try {
    j = await readJournal(root);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  if (!j) return null;
  const holder = await readLock(root).catch(() => null);
  if (holder && holder.hostname === os.hostname() && processAlive(holder.pid)) {
    return `A ${j.kind === 'migrate' ? 'migration' : 'rollback'} (${j.migrationId}) is running (pid ${holder.pid}, since ${holder.startedAt}).`;
  }
  if (j.kind === 'rollback') return `A rollback of migration ${j.migrationId} was interrupted; it will be completed at the next tool call.`;
  if (j.phase === 'done') return `Migration ${j.migrationId} finished; its leftover temporary files will be removed at the next tool call.`;
  return `Migration ${j.migrationId} was interrupted; the workspace will be restored from its backup at the next tool call.`;
}

/** Run `change` on onboarding.json; an unreadable record is left as it is (the files are what counts; status reports it). */
async function recordState(root: string, change: Parameters<typeof updateState>[1], now: Date): Promise<void> {
  try {
    await updateState(root, change, now.toISOString());
  } catch (e) {
    if (!(e instanceof OnboardingError && e.code === ErrorCode.STATE_CORRUPT)) throw e;
  }
}

/** Record a finished migration (idempotent): status migrated, the approval cleared, the migration appended from its manifest. */
export async function recordMigrated(root: string, manifest: Manifest, at: Date): Promise<void> {
  const rel = backupRelPaths(manifest.migrationId);
  await recordState(
    root,
    (s) => {
      if (s.migrations.some((m) => m.migrationId === manifest.migrationId)) return;
      s.status = 'migrated';
      s.approval = null;
      s.migrations.push({
        migrationId: manifest.migrationId,
        planId: manifest.planId,
        planSha256: manifest.planSha256,
        migratedAt: at.toISOString(),
        backup: rel.archive,
        manifest: rel.manifest,
        written: manifest.written.map((w) => ({ path: w.path, op: w.op })),
        rolledBackAt: null,
      });
    },
    at,
  );
}

/** Record a finished rollback (idempotent): the migration's rolledBackAt set, status rolled-back, plan and approval cleared. */
export async function recordRolledBack(root: string, manifest: Manifest, at: Date): Promise<void> {
  await recordMigrated(root, manifest, at);
  await recordState(
    root,
    (s) => {
      const m = s.migrations.find((x) => x.migrationId === manifest.migrationId);
      if (m && m.rolledBackAt === null) m.rolledBackAt = at.toISOString();
      s.status = 'rolled-back';
      s.currentPlan = null;
      s.approval = null;
    },
    at,
  );
}

/**
 * Ids of every migration that started writing: recorded in onboarding.json, with a manifest
 * in backups/ (a backup is discarded only when its migration stopped before changing a file),
 * or named by the journal. An approval counts as used only by a migration in this set.
 */
export async function startedMigrationIds(root: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const name of await fsp.readdir(backupsDir(root)).catch(() => [] as string[])) {
    if (name.endsWith('.manifest.json')) ids.add(name.slice(0, -'.manifest.json'.length));
  }
  const j = await readJournal(root).catch(() => null);
  if (j?.kind === 'migrate') ids.add(j.migrationId);
  const s = await loadState(root).catch(() => null);
  for (const m of s?.migrations ?? []) ids.add(m.migrationId);
  return ids;
}
