/**
 * Crash recovery, run before every gate and at start: finish or undo an interrupted migration or
 * rollback, and record what it reached in onboarding.json.
 */
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { recoverInterrupted } from '../io/recovery.js';
import { backupRelPaths, readManifest } from '../io/backup.js';
import { updateState } from '../io/state.js';

export interface Recovery {
  status: string;
  migrationId: string | null;
  message: string;
}

/** Finish or undo an interrupted migration/rollback before doing anything else. */
export async function recover(root: string): Promise<Recovery | null> {
  const r = await recoverInterrupted(root);
  if (r.status === 'none') return null;
  if (r.status === 'busy') {
    throw new OnboardingError(ErrorCode.BUSY, r.message, { next: 'Wait for the running migration or rollback to finish, then try again.' });
  }
  if (r.status === 'clean' && r.migrationId) await recordFinishedMigration(root, r.migrationId);
  return { status: r.status, migrationId: r.migrationId ?? null, message: r.message };
}

/**
 * A migration that finished on disk but died before onboarding.json was updated: record it from
 * its manifest so that status shows it and rollback finds it without an explicit id.
 */
async function recordFinishedMigration(root: string, migrationId: string): Promise<void> {
  const manifest = await readManifest(root, migrationId);
  const rel = backupRelPaths(migrationId);
  await updateState(root, (s) => {
    if (s.migrations.some((m) => m.migrationId === migrationId)) return;
    s.status = 'migrated';
    s.approval = null;
    s.migrations.push({
      migrationId,
      planId: manifest.planId,
      planSha256: manifest.planSha256,
      migratedAt: manifest.createdAt,
      backup: rel.archive,
      manifest: rel.manifest,
      written: manifest.written.map((w) => ({ path: w.path, op: w.op })),
      rolledBackAt: null,
    });
  });
}
