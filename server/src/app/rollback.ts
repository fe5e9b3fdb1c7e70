/**
 * The rollback gate, the one path by which the MCP tool and the terminal command undo a
 * migration: prepare (find the migration, check its backup against the manifest before anyone
 * is asked, list the files edited since) → ask (the channel's form or prompt, traced before it
 * returns) → re-prepare and compare → commit (restore, record it in the state).
 *
 * Security: the human confirms what the question showed. Anything that changed while it was
 * open (a migrated file edited, the backup replaced, another migration now the one to undo)
 * refuses the rollback with nothing changed, so no edit is discarded that was not listed.
 */
import { rollbackForm } from '../core/form-render.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { MigrationIdSchema, type Manifest } from '../schemas/manifest.js';
import { editedSinceMigration, rollback } from '../io/rollback.js';
import { loadMigration } from '../io/migration-record.js';
import { manifestIds } from '../io/backup.js';
import { loadState } from '../io/state.js';
import { backupRelPaths, editedRelDir, rel } from '../io/layout.js';
import type { TraceRef } from './gate-trace.js';

export interface PreparedRollback {
  migrationId: string;
  manifest: Manifest;
  edited: string[];
  restore: string[];
  remove: string[];
  archive: string;
  /** Where the files edited since the migration are saved before they are restored or removed. */
  savedTo: string;
  message: string;
}

/**
 * The migration to undo: the newest one not rolled back. An explicit id must name that one:
 * Security: restoring an older or already rolled-back migration's backup would overwrite a
 * newer migration's files (or files written since) with bytes nobody asked for.
 */
async function resolveMigrationId(root: string, migrationId: string | undefined): Promise<string> {
  if (migrationId !== undefined && !MigrationIdSchema.safeParse(migrationId).success) {
    throw new OnboardingError(ErrorCode.INVALID_INPUT, `"${migrationId}" is not a migration id.`, { next: 'Use the migrationId returned by onboarding_migrate (see copilot-onboarding status).' });
  }
  const newest = await newestLiveMigration(root);
  if (newest === null) {
    throw new OnboardingError(ErrorCode.NO_MIGRATION, `There is no migration to roll back${migrationId ? ` (${migrationId} is not a live migration)` : ''}.`, { next: 'Nothing to do.' });
  }
  if (migrationId !== undefined && migrationId !== newest) throw notNewest(migrationId, newest); // safety: rollback-newest-only
  return newest;
}

function notNewest(migrationId: string, newest: string): OnboardingError {
  return new OnboardingError(
    ErrorCode.NO_MIGRATION,
    `Migration ${migrationId} cannot be rolled back: only the newest migration not yet rolled back (${newest}) can be. Nothing was changed.`,
    { next: `Roll back ${newest} (omit the id), or restore older files from version control.` },
  );
}

/** The newest migration with rolledBackAt unset; when onboarding.json is unreadable, the newest manifest on disk. */
async function newestLiveMigration(root: string): Promise<string | null> {
  try {
    const state = await loadState(root);
    const last = state.migrations[state.migrations.length - 1];
    return last && last.rolledBackAt === null ? last.migrationId : null;
  } catch (e) {
    if (!(e instanceof OnboardingError) || e.code !== ErrorCode.STATE_CORRUPT) throw e;
    const newest = (await manifestIds(root)).pop();
    if (!newest) throw e;
    return newest;
  }
}

export async function prepareRollback(root: string, migrationId: string | undefined): Promise<PreparedRollback> {
  const id = await resolveMigrationId(root, migrationId);
  // The manifest, checked against the migration's plan, and the backup against the manifest (io/migration-record).
  const { manifest } = await loadMigration(root, id);
  const edited = await editedSinceMigration(root, manifest);
  const restore = manifest.files.map((f) => f.path);
  const remove = manifest.creates;
  const archive = rel('backups', manifest.archive);
  const savedTo = `${editedRelDir(id)}/`;
  return {
    migrationId: id,
    manifest,
    edited,
    restore,
    remove,
    archive,
    savedTo,
    message: rollbackForm({ migrationId: id, archive, manifest: backupRelPaths(id).manifest, restore, remove, edited, savedTo }),
  };
}

export async function commitRollback(
  root: string,
  prep: PreparedRollback,
  opts: { onProgress?: ((step: string, done: number, total: number) => void) | undefined; now?: (() => number) | undefined } = {},
): Promise<{ restored: string[]; removed: string[]; saved: string[] }> {
  // io/rollback records the outcome in onboarding.json (rolledBackAt, status) before it clears its journal.
  const r = await rollback(root, prep.migrationId, { ...(opts.onProgress ? { onProgress: opts.onProgress } : {}), now: new Date((opts.now ?? Date.now)()) });
  return { restored: prep.restore, removed: prep.remove, saved: r.saved };
}

/** What a channel's question returns: whether the human confirmed, and the trace already written for the answer. */
export interface GateAnswer {
  confirmed: boolean;
  trace: TraceRef;
}

export type RollbackGateResult<A extends GateAnswer> =
  | { kind: 'not-confirmed'; prep: PreparedRollback; answer: A }
  /** Something changed while the question was open; `current` is what a new question would show. */
  | { kind: 'changed'; prep: PreparedRollback; answer: A; current: PreparedRollback; reason: string }
  | { kind: 'rolled-back'; prep: PreparedRollback; answer: A; restored: string[]; removed: string[]; saved: string[] };

/**
 * prepare → ask → re-prepare and compare → commit. `ask` is the channel (MCP elicitation or a
 * terminal prompt) and returns only once its answer is traced (fail closed: it throws when the
 * trace cannot be written). Errors of either preparation (BACKUP_CORRUPT, NO_MIGRATION, …) are
 * thrown before any file is touched.
 */
export async function rollbackGate<A extends GateAnswer>(
  root: string,
  migrationId: string | undefined,
  ask: (prep: PreparedRollback) => Promise<A>,
  opts: { onProgress?: ((step: string, done: number, total: number) => void) | undefined; now?: (() => number) | undefined } = {},
): Promise<RollbackGateResult<A>> {
  const prep = await prepareRollback(root, migrationId);
  const answer = await ask(prep);
  if (!answer.confirmed) return { kind: 'not-confirmed', prep, answer };
  const current = await prepareRollback(root, migrationId);
  const reason = changedSince(prep, current);
  if (reason) return { kind: 'changed', prep, answer, current, reason }; // safety: rollback-unchanged-while-asked
  const done = await commitRollback(root, current, opts);
  return { kind: 'rolled-back', prep, answer, ...done };
}

function manifestChanged(asked: PreparedRollback, current: PreparedRollback): string {
  return current.migrationId !== asked.migrationId
    ? `the migration to undo is now ${current.migrationId}, not ${asked.migrationId} as the question said.`
    : `the backup of migration ${asked.migrationId} changed while the question was open.`;
}

/** Why `current` is not what the human was asked about, or null when it is. */
function changedSince(asked: PreparedRollback, current: PreparedRollback): string | null {
  // (another migration has another manifest: its id is inside it)
  if (current.manifest.sha256 !== asked.manifest.sha256) return manifestChanged(asked, current); // safety: rollback-backup-unchanged-while-asked
  const newlyEdited = current.edited.filter((f) => !asked.edited.includes(f));
  if (newlyEdited.length) return `${newlyEdited.join(', ')} changed while the question was open, and those edits were not shown.`; // safety: rollback-no-unshown-edits
  return null;
}
