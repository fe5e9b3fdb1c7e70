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
import { readManifest } from './backup.js';
import { noCrash } from './crash-points.js';
import { clearJournal, readJournal, sweepSidecars } from './journal.js';
import { backupRelPaths, backupsDir, savedCopyPath, stateDir } from './layout.js';
import { loadState, updateState } from './state.js';
import { acquireLock, processAlive, readLock } from './lock.js';
import { discardBackup, hashFile, lstatOrNull, undo } from './undo.js';
import { journalPlan, loadMigration, recordedPlan } from './migration-record.js';
import { isWithin, readRegularFile, resolveInside, unlessMissing } from './workspace.js';
import { sha256Hex } from '../core/canonical.js';

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

/** The targets that are not exactly as before the migration (per the journal): a created path that exists, another whose bytes differ. */
async function notInPreState(root: string, ops: JournalOp[]): Promise<string[]> {
  const out: string[] = [];
  for (const op of ops) {
    const abs = resolveInside(root, op.path);
    if (op.op === 'create' ? await lstatOrNull(abs) : (await hashFile(abs)) !== op.previousSha256) out.push(op.path);
  }
  return out;
}

/**
 * Recovery will not act: it says what it found and touched nothing. Thrown, so that every gate
 * that recovers first refuses too, and status shows the message.
 */
function needsPerson(j: Journal, found: string, next: string, code: ErrorCode = ErrorCode.STATE_CORRUPT): OnboardingError {
  const what = j.kind === 'migrate' ? `migration ${j.migrationId}` : `a rollback of migration ${j.migrationId}`;
  return new OnboardingError(code, `Recovery needs a person: the journal .copilot-state/journal.json is for ${what}, but ${found} Recovery touched nothing.`, {
    next,
    details: { needsPerson: true, found },
  });
}

const NEXT_LOOK =
  'Compare the files named with .copilot-state/backups/ and version control; once the workspace is as you want it, delete .copilot-state/journal.json.';

/**
 * Security: the journal is untrusted (anyone with workspace access can write it). Recovery acts
 * only on a journal for the newest migration not yet rolled back: a rollback journal must name
 * the last migration recorded in onboarding.json; a migrate journal must name a migration that
 * never finished (none recorded by that id), or the last one, unrolled, when its journal says
 * `done`. Returns what is wrong, or null.
 */
async function notNewest(root: string, j: Journal): Promise<string | null> {
  let s;
  try {
    s = await loadState(root);
  } catch (e) {
    if (!(e instanceof OnboardingError) || e.code !== ErrorCode.STATE_CORRUPT) throw e;
    return 'onboarding.json is unreadable, so it is unknown whether that is the newest migration.';
  }
  const last = s.migrations[s.migrations.length - 1];
  const recorded = s.migrations.find((m) => m.migrationId === j.migrationId);
  const newest = last ? `the newest migration is ${last.migrationId}${last.rolledBackAt === null ? '' : `, rolled back at ${last.rolledBackAt}`}` : 'no migration is recorded';
  if (j.kind === 'rollback') return recorded && recorded === last ? null : `${newest}.`;
  if (!recorded) return null;
  if (recorded === last && recorded.rolledBackAt === null && j.phase === 'done') return null;
  return `that migration is recorded as ${recorded.rolledBackAt === null ? 'finished' : `rolled back at ${recorded.rolledBackAt}`}, and ${newest}.`;
}

/**
 * Paths whose bytes are neither what the migration found nor what it wrote (nor absent), so an
 * undo would overwrite or remove someone's edit: for a rollback, an edit already saved beside the
 * backup (byte for byte) does not count. Non-regular files always count.
 */
async function foreignBytes(root: string, j: Journal): Promise<string[]> {
  const out: string[] = [];
  for (const op of j.ops) {
    const abs = resolveInside(root, op.path);
    const st = await lstatOrNull(abs);
    if (!st) continue;
    if (!st.isFile()) {
      out.push(`${op.path} (not a regular file)`);
      continue;
    }
    const sha = await hashFile(abs);
    if (sha === op.sha256 || sha === op.previousSha256) continue;
    if (j.kind === 'rollback' && (await savedCopyHolds(root, j.migrationId, op.path, sha))) continue;
    out.push(op.path);
  }
  return out;
}

/** Does the rollback's saved copy of `rel` (a regular file really inside the state folder) hold bytes hashing to `sha`? */
async function savedCopyHolds(root: string, migrationId: string, rel: string, sha: string | null): Promise<boolean> {
  const abs = resolveInside(root, savedCopyPath(migrationId, rel));
  const [real, realState] = await Promise.all([unlessMissing(() => fsp.realpath(abs)), unlessMissing(() => fsp.realpath(stateDir(root)))]);
  if (real === null || realState === null || !isWithin(realState, real)) return false; // safety: recovery-saved-copy-inside-state
  const bytes = await unlessMissing(() => readRegularFile(real));
  return Buffer.isBuffer(bytes) && sha256Hex(bytes) === sha;
}

/** Paths that do not hold what a finished migration wrote. */
async function notAsWritten(root: string, ops: JournalOp[]): Promise<string[]> {
  const out: string[] = [];
  for (const op of ops) {
    const abs = resolveInside(root, op.path);
    const ok = op.op === 'delete' ? !(await lstatOrNull(abs)) : (await lstatOrNull(abs))?.isFile() && (await hashFile(abs)) === op.sha256;
    if (!ok) out.push(op.path);
  }
  return out;
}

/** Recovery with the lock held. Throws (touching nothing) when it needs a person. */
export async function recoverLocked(root: string): Promise<RecoveryReport> {
  const j = await readJournal(root);
  if (!j) return { status: 'none', message: 'No interrupted migration or rollback.' };
  const id = j.migrationId;
  const paths = j.ops.map((o) => o.path);
  const stale = await notNewest(root, j);
  if (stale) throw needsPerson(j, stale, NEXT_LOOK); // safety: recovery-newest-only
  // Only the plan's own paths, re-read from the plan, never the journal's word alone.
  try {
    await journalPlan(root, j); // safety: recovery-journal-matches-plan
  } catch (e) {
    if (!(e instanceof OnboardingError)) throw e;
    throw needsPerson(j, `its plan does not vouch for it: ${e.message}`, e.next ?? NEXT_LOOK, e.code);
  }
  if (j.kind === 'migrate' && j.phase === 'done') {
    const manifest = await readManifest(root, id);
    await recordedPlan(root, manifest); // safety: recovery-done-manifest-matches-plan
    const off = await notAsWritten(root, j.ops);
    if (off.length) throw needsPerson(j, `it says the migration finished while ${off.join(', ')} do not hold what it wrote.`, NEXT_LOOK); // safety: recovery-done-as-written
    await sweepSidecars(root, paths);
    await recordMigrated(root, manifest, new Date(j.updatedAt));
    await clearJournal(root);
    return { status: 'clean', migrationId: id, message: `Migration ${id} had finished and passed its check before it was interrupted; its leftover temporary files were removed. The workspace is as migrated.` };
  }
  if (j.kind === 'migrate' && j.phase === 'backing-up') {
    // A migration in `backing-up` has changed no file yet, so discarding its backup loses nothing;
    // a tree that is not as before it means the migration went further (or someone edited since),
    // and its backup may be the only way back: kept, and a person decides.
    const changed = await notInPreState(root, j.ops);
    if (changed.length) throw needsPerson(j, `it says the migration stopped while making its backup, before any file was changed, yet ${changed.join(', ')} ${changed.length === 1 ? 'is' : 'are'} not as before it (the migration went further, or someone edited since); its backup is kept, as it may be the only way back.`, NEXT_LOOK); // safety: recovery-backing-up-unchanged-tree
    await sweepSidecars(root, paths);
    await discardBackup(root, id);
    await clearJournal(root);
    return { status: 'rolled-back', migrationId: id, message: `Interrupted migration ${id} was rolled back; the workspace is exactly as before (it stopped while making its backup, before any file was changed).` };
  }
  const foreign = await foreignBytes(root, j);
  if (foreign.length) throw needsPerson(j, `${foreign.join(', ')} ${foreign.length === 1 ? 'holds' : 'hold'} bytes that migration neither found nor wrote (edited since?), and recovery never overwrites or removes those.`, NEXT_LOOK); // safety: recovery-no-foreign-bytes
  let manifest: Manifest | null = null;
  let reason = '';
  try {
    const m = await loadMigration(root, id);
    manifest = m.manifest;
    // (a rollback saved every edit it removes beside the backup first; foreignBytes checked that)
    const res = await undo(root, manifest, m.contents, { crash: noCrash, removeEdited: j.kind === 'rollback' });
    if (j.kind === 'rollback') await recordRolledBack(root, manifest, new Date());
    await clearJournal(root);
    const keptNote = res.kept.length ? ` Left in place because they were changed by someone else: ${res.kept.join(', ')}.` : '';
    if (j.kind === 'migrate') {
      return { status: 'rolled-back', migrationId: id, message: `Interrupted migration ${id} was rolled back; the workspace is exactly as before.${keptNote}` };
    }
    return { status: 'completed-rollback', migrationId: id, message: `An interrupted rollback of migration ${id} was completed; the workspace is as it was before that migration.${keptNote}` };
  } catch (e) {
    if (!(e instanceof OnboardingError) || (e.code !== ErrorCode.BACKUP_CORRUPT && e.code !== ErrorCode.BACKUP_MISSING)) throw e;
    reason = e.message;
  }
  // The backup is unusable. If nothing had been changed yet, there is nothing to undo.
  if (j.kind === 'migrate' && (await notInPreState(root, j.ops)).length === 0) {
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
