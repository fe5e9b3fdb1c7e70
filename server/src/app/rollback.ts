/**
 * Rollback steps shared by the MCP tool and the terminal command: find the migration, check
 * its backup against the manifest (before asking anyone), list files edited since, then
 * restore and record it in the state.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { rollbackMessage } from '../core/approval.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import type { Manifest } from '../schemas/manifest.js';
import { editedSinceMigration, rollback } from '../io/rollback.js';
import { readManifest, verifyBackup } from '../io/backup.js';
import { loadState, updateState } from '../io/state.js';
import { backupsDir, rel } from '../io/layout.js';

export interface PreparedRollback {
  migrationId: string;
  manifest: Manifest;
  edited: string[];
  restore: string[];
  remove: string[];
  archive: string;
  message: string;
}

/** The migration to undo: the one named, else the last one not rolled back. */
export async function resolveMigrationId(root: string, migrationId: string | undefined): Promise<string> {
  if (migrationId) {
    if (!/^[A-Za-z0-9._-]{1,128}$/.test(migrationId)) {
      throw new OnboardingError(ErrorCode.INVALID_INPUT, `"${migrationId}" is not a migration id.`, { next: 'Use the migrationId returned by onboarding_migrate (see copilot-onboarding status).' });
    }
    return migrationId;
  }
  try {
    const state = await loadState(root);
    const last = [...state.migrations].reverse().find((m) => m.rolledBackAt === null);
    if (last) return last.migrationId;
    throw new OnboardingError(ErrorCode.NO_MIGRATION, 'There is no migration to roll back.', { next: 'Nothing to do.' });
  } catch (e) {
    if (!(e instanceof OnboardingError) || e.code !== ErrorCode.STATE_CORRUPT) throw e;
    // onboarding.json is unreadable: fall back to the newest manifest on disk.
    const dir = backupsDir(root);
    const manifests = (await fsp.readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.manifest.json')).sort();
    const newest = manifests[manifests.length - 1];
    if (!newest) throw e;
    return newest.replace(/\.manifest\.json$/, '');
  }
}

export async function prepareRollback(root: string, migrationId: string | undefined): Promise<PreparedRollback> {
  const id = await resolveMigrationId(root, migrationId);
  const manifest = await readManifest(root, id);
  const check = await verifyBackup(root, manifest);
  if (!check.ok) {
    throw new OnboardingError(ErrorCode.BACKUP_CORRUPT, `The backup of migration ${id} failed its check: ${check.reason}. No file was touched.`, {
      next: 'Restore the backup files in .copilot-state/backups/ from a copy, or restore the instruction files from version control.',
    });
  }
  const edited = await editedSinceMigration(root, manifest);
  const restore = manifest.files.map((f) => f.path);
  const remove = manifest.creates;
  const archive = rel('backups', manifest.archive);
  return { migrationId: id, manifest, edited, restore, remove, archive, message: rollbackMessage({ migrationId: id, restore, remove, edited, archive }) };
}

export async function commitRollback(
  root: string,
  prep: PreparedRollback,
  opts: { onProgress?: (step: string, done: number, total: number) => void } = {},
): Promise<{ restored: string[]; removed: string[] }> {
  await rollback(root, prep.migrationId, opts.onProgress ? { onProgress: opts.onProgress } : {});
  try {
    await updateState(root, (s) => {
      const m = s.migrations.find((x) => x.migrationId === prep.migrationId);
      if (m) m.rolledBackAt = new Date().toISOString();
      s.status = 'rolled-back';
      s.currentPlan = null;
      s.approval = null;
    });
  } catch (e) {
    // The files are restored; a corrupt onboarding.json is reported, not fatal.
    if (!(e instanceof OnboardingError && e.code === ErrorCode.STATE_CORRUPT)) throw e;
  }
  return { restored: prep.restore, removed: prep.remove };
}
