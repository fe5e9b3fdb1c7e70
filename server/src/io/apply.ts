/**
 * Crash-safe migrate: lock → finish any interrupted work → re-check every hash the plan
 * recorded → journal `backing-up` → tar.gz backup + manifest, read back and verified →
 * journal `applying` → make new folders → stage every new content in a side file next to its
 * target, each made durable → rename each into place (a delete renames the target to a trash
 * side file) → fsync the folders → verify on disk (every written hash, then the lossless
 * proof) → journal `done` → record the migration in onboarding.json → remove side files →
 * clear the journal → unlock. The record is written before the journal is cleared, so a kill
 * between the two leaves a journal that recovery finishes (idempotently), never a migrated
 * tree that the state record does not know about.
 *
 * A failure after the first write is undone from the backup (io/undo.ts) before the error is
 * thrown; a crash anywhere is finished by io/recovery.ts. Every step calls a crash hook
 * (io/crash-points.ts).
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../core/canonical.js';
import { assertConfined } from '../core/confine.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { contentMatches, verifyLossless } from '../core/plan.js';
import { JOURNAL_FORMAT, type Journal } from '../schemas/journal.js';
import { MigrationIdSchema, isSafeRelPath, type Manifest } from '../schemas/manifest.js';
import { PlanSchema, type Plan } from '../schemas/plan.js';
import { backupRelPaths, backupsDir, createBackup } from './backup.js';
import { crashFromEnv, type CrashHook } from './crash-points.js';
import { fsyncDir, writeDurable } from './durable.js';
import { clearJournal, sidecarPath, sweepSidecars, writeJournal } from './journal.js';
import { planFile } from './layout.js';
import { acquireLock, type LockHandle } from './lock.js';
import { savePlan } from './plans.js';
import { recordMigrated, recoverLocked } from './recovery.js';
import { discardBackup, hashFile, lstatOrNull, undoFailed, type ProgressHook } from './undo.js';
import { forEachLimit, IO_CONCURRENCY, mapLimit, readRegularFile, RealInsideGuard, resolveInside, unlessMissing } from './workspace.js';

/** The on-disk lossless proof: original source bytes and what is on disk now (null = absent). */
export type OutputVerifier = (sources: Map<string, Uint8Array>, outputs: Map<string, Uint8Array | null>) => { ok: boolean; errors: string[] };

export interface MigrateOptions {
  migrationId: string;
  /**
   * Runs after every written file's SHA-256 was checked. Default: the plan's own lossless proof
   * (core/plan.ts verifyLossless) over the original source bytes and the files on disk.
   */
  verify?: OutputVerifier;
  onProgress?: ProgressHook;
  crashAt?: CrashHook;
  now?: Date;
  /**
   * The workspace lock, already taken by the caller (the migrate gate holds it from its
   * freshness check through the human's answer); released by the caller. Default: taken here.
   */
  lock?: LockHandle;
}

export interface MigrationResult {
  migrationId: string;
  /** Workspace-relative paths. */
  backup: { archive: string; manifest: string };
  written: Manifest['written'];
  verified: true;
}

function stale(rel: string, what: string, planId: string): OnboardingError {
  return new OnboardingError(ErrorCode.PLAN_STALE, `${rel} ${what} since plan ${planId} was proposed: stale plan: run onboarding_propose again. Nothing was changed.`, {
    next: 'Run onboarding_propose again, then approve the new plan.',
  });
}

/** Structural checks of the plan's operations; nothing on disk. */
function checkOperations(plan: Plan): void {
  const parsed = PlanSchema.safeParse(plan);
  if (!parsed.success) {
    throw new OnboardingError(ErrorCode.PLAN_CORRUPT, `Plan ${plan.planId} does not match the plan schema. Nothing was changed.`, { next: 'Run onboarding_propose again.' });
  }
  if (plan.operations.length === 0) {
    throw new OnboardingError(ErrorCode.NOTHING_TO_MIGRATE, `Plan ${plan.planId} has no operations. Nothing was changed.`, { next: 'Nothing to do.' });
  }
  const seen = new Set<string>();
  for (const op of plan.operations) {
    if (!isSafeRelPath(op.path)) {
      throw new OnboardingError(ErrorCode.PATH_OUTSIDE_WORKSPACE, `Plan ${plan.planId} names a path that is not allowed: ${JSON.stringify(op.path)}. Nothing was changed.`);
    }
    if (seen.has(op.path)) throw new OnboardingError(ErrorCode.PLAN_CORRUPT, `Plan ${plan.planId} names ${op.path} twice. Nothing was changed.`, { next: 'Run onboarding_propose again.' });
    seen.add(op.path);
    const bad = (why: string) => new OnboardingError(ErrorCode.PLAN_CORRUPT, `Plan ${plan.planId}: the ${op.op} of ${op.path} ${why}. Nothing was changed.`, { next: 'Run onboarding_propose again.' });
    if (op.op === 'delete') {
      if (op.previousSha256 === null) throw bad('does not record the hash of the file it deletes');
      continue;
    }
    if (!contentMatches(op)) throw bad('has content that does not match its recorded size and sha256');
    if (op.op === 'modify' && op.previousSha256 === null) throw bad('does not record the hash of the file it replaces');
    if (op.op === 'create' && op.previousSha256 !== null) throw bad('records a previous hash for a file it creates');
  }
  assertConfined(plan); // safety: confine-write-engine
}

/** Re-read every source and target: refuse (PLAN_STALE) if anything differs from what the plan recorded. Returns the source bytes. */
export async function checkFresh(root: string, plan: Plan, guard = new RealInsideGuard(root)): Promise<Map<string, Uint8Array>> {
  const sources = new Map<string, Uint8Array>();
  const read = await mapLimit(plan.sources, IO_CONCURRENCY, async (s) => {
    const abs = resolveInside(root, s.path);
    await guard.check(abs);
    const st = await lstatOrNull(abs);
    if (!st) throw stale(s.path, 'was removed', plan.planId);
    if (!st.isFile()) throw stale(s.path, 'is no longer a regular file', plan.planId);
    const bytes = await fsp.readFile(abs);
    if (sha256Hex(bytes) !== s.sha256) throw stale(s.path, 'changed', plan.planId);
    return bytes;
  });
  plan.sources.forEach((s, i) => sources.set(s.path, read[i]!));
  await forEachLimit(plan.operations, IO_CONCURRENCY, async (op) => {
    const abs = resolveInside(root, op.path);
    // (a path under a folder that does not exist does not exist either: no lstat)
    const st = (await guard.check(abs)) ? await lstatOrNull(abs) : null;
    if (op.op === 'create') {
      if (st) throw stale(op.path, 'appeared (the plan would create it)', plan.planId);
      return;
    }
    if (!st) throw stale(op.path, 'was removed', plan.planId);
    if (!st.isFile()) throw stale(op.path, 'is no longer a regular file', plan.planId);
    const bytes = sources.get(op.path) ?? (await fsp.readFile(abs));
    if (sha256Hex(bytes) !== op.previousSha256) throw stale(op.path, 'changed', plan.planId);
  });
  return sources;
}

/**
 * Refuse, at propose time, a plan that migrate could never apply: a file it modifies or
 * deletes that is a symlink (the migration would replace the link), or an output whose real
 * location is outside the workspace (e.g. `.github/instructions` linked elsewhere).
 */
export async function assertApplicable(root: string, plan: Plan): Promise<void> {
  for (const op of plan.operations) {
    const abs = resolveInside(root, op.path);
    if (op.op !== 'create') {
      const st = await fsp.lstat(abs);
      if (st.isSymbolicLink()) {
        const target = await fsp.readlink(abs);
        throw new OnboardingError(ErrorCode.SOURCE_REFUSED, `${op.path} is a symlink (a symbolic link to ${target}); migrating would replace the link with a file.`, {
          next: `Replace the link with the file it points to (or point the workspace at the real file's repository), then run onboarding_propose again.`,
        });
      }
    }
    try {
      await new RealInsideGuard(root).check(abs);
    } catch (e) {
      if (e instanceof OnboardingError) {
        throw new OnboardingError(ErrorCode.PATH_OUTSIDE_WORKSPACE, `The plan would write ${op.path}, whose folder leads outside the workspace through a symbolic link.`, {
          next: 'Remove or fix the link (e.g. .github/instructions), then run onboarding_propose again.',
        });
      }
      throw e;
    }
  }
}

/** Move one staged file into place (a delete moves the target to a trash side file). */
async function moveIntoPlace(root: string, op: Plan['operations'][number], planId: string, migrationId: string): Promise<void> {
  const abs = resolveInside(root, op.path);
  if (op.op === 'create') {
    const stage = sidecarPath(root, op.path, 'stage', migrationId);
    // link, not rename: a file that appeared meanwhile is never overwritten.
    try {
      await fsp.link(stage, abs);
      await fsp.unlink(stage);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw stale(op.path, 'appeared', planId);
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw e;
      if (await lstatOrNull(abs)) throw stale(op.path, 'appeared', planId);
      await fsp.rename(stage, abs);
    }
    return;
  }
  // Last look right before replacing: someone's edit made since the check is never overwritten.
  if ((await hashFile(abs)) !== op.previousSha256) throw stale(op.path, 'changed', planId);
  if (op.op === 'modify') await fsp.rename(sidecarPath(root, op.path, 'stage', migrationId), abs);
  else await fsp.rename(abs, sidecarPath(root, op.path, 'trash', migrationId));
}

/**
 * The write half of migrate; the journal says `applying` while this runs. Every staged file
 * is written and made durable (a bounded number at a time) before the first one is moved
 * into place; then the moves, a bounded number at a time; then one fsync per touched folder.
 */
async function applyOperations(root: string, plan: Plan, manifest: Manifest, migrationId: string, crash: CrashHook, progress: (step: string) => void): Promise<void> {
  const dirs = new Set<string>();
  for (const d of manifest.createdDirs) {
    const abs = resolveInside(root, d);
    await fsp.mkdir(abs).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw e;
    });
    dirs.add(path.dirname(abs));
  }
  await Promise.all([...dirs].map((d) => fsyncDir(d)));
  crash('dirs-created');

  const modes = new Map(manifest.files.map((f) => [f.path, f.mode]));
  const writes = plan.operations.filter((op) => op.op !== 'delete');
  await forEachLimit(
    writes,
    IO_CONCURRENCY,
    // A leftover of an earlier attempt is replaced; a modified file keeps its permissions.
    (op) => {
      const mode = modes.get(op.path);
      return writeDurable(sidecarPath(root, op.path, 'stage', migrationId), op.content ?? '', { replace: true, ...(mode !== undefined ? { mode } : {}) });
    },
    (i) => crash(`staged-${i + 1}`),
  );
  crash('staged-synced');

  // The moves touch different paths, so they overlap too; crash points and progress follow plan order.
  let renamed = 0;
  let deleted = 0;
  await forEachLimit(
    plan.operations,
    IO_CONCURRENCY,
    (op) => moveIntoPlace(root, op, plan.planId, migrationId),
    (i) => {
      const op = plan.operations[i]!;
      crash(op.op === 'delete' ? `deleted-${++deleted}` : `renamed-${++renamed}`);
      progress(`${op.op} ${op.path}`);
    },
  );
  const touched = new Set(plan.operations.map((op) => path.dirname(resolveInside(root, op.path))));
  await Promise.all([...touched].map((d) => fsyncDir(d)));
  crash('dirs-synced');
}

/** What is on disk now against the plan: every hash, then the caller's proof. Returns the problems. */
async function verifyOnDisk(root: string, plan: Plan, sources: Map<string, Uint8Array>, verify: OutputVerifier | undefined): Promise<string[]> {
  const outputs = new Map<string, Uint8Array | null>();
  const found = await mapLimit(plan.operations, IO_CONCURRENCY, async (op): Promise<{ bytes: Uint8Array | null; error?: string }> => {
    const abs = resolveInside(root, op.path);
    if (op.op === 'delete') return (await lstatOrNull(abs)) ? { bytes: null, error: `${op.path} still exists` } : { bytes: null };
    const bytes = await unlessMissing(() => readRegularFile(abs));
    if (!Buffer.isBuffer(bytes)) return { bytes: null, error: `${op.path} is missing` };
    const sha = sha256Hex(bytes);
    if (bytes.length !== op.size || sha !== op.sha256) return { bytes, error: `${op.path} does not hold the planned bytes (sha256 ${sha.slice(0, 12)}…, expected ${op.sha256?.slice(0, 12)}…)` };
    return { bytes };
  });
  plan.operations.forEach((op, i) => outputs.set(op.path, found[i]!.bytes));
  const errors = found.flatMap((f) => (f.error === undefined ? [] : [f.error]));
  if (errors.length === 0 && verify) {
    try {
      const r = verify(sources, outputs);
      if (!r.ok) errors.push(...(r.errors.length ? r.errors : ['the lossless check failed']));
    } catch (e) {
      errors.push(`the lossless check threw: ${(e as Error).message}`);
    }
  }
  return errors;
}

/** Rethrow anything but a refused write outside the state folder (which removed nothing). */
function unlessOutside(e: unknown): void {
  if (!(e instanceof OnboardingError && e.code === ErrorCode.PATH_OUTSIDE_WORKSPACE)) throw e;
}

/** Apply a plan: backup, write crash-safely, verify on disk. See the module comment for the steps. */
export async function migrate(root: string, plan: Plan, opts: MigrateOptions): Promise<MigrationResult> {
  const { migrationId } = opts;
  const crash = opts.crashAt ?? crashFromEnv;
  if (!MigrationIdSchema.safeParse(migrationId).success) {
    throw new OnboardingError(ErrorCode.INVALID_INPUT, `"${migrationId}" is not a valid migration id. Nothing was changed.`);
  }
  checkOperations(plan);
  const total = plan.operations.length + 4;
  let done = 0;
  const progress = (step: string) => opts.onProgress?.(step, ++done, total);

  const lock = opts.lock ?? (await acquireLock(root, { owner: `migrate ${migrationId}` }));
  try {
    crash('lock-acquired');
    await recoverLocked(root);
    const guard = new RealInsideGuard(root);
    const sources = await checkFresh(root, plan, guard);
    crash('after-stale-check');
    progress('checked');

    const now = (opts.now ?? new Date()).toISOString();
    const journal: Journal = {
      format: JOURNAL_FORMAT,
      kind: 'migrate',
      phase: 'backing-up',
      migrationId,
      planId: plan.planId,
      pid: process.pid,
      startedAt: now,
      updatedAt: now,
      ops: plan.operations.map((op) => ({ op: op.op, path: op.path, previousSha256: op.previousSha256, sha256: op.op === 'delete' ? null : op.sha256 })),
      createdDirs: [],
    };
    let manifest: Manifest;
    const existing = await fsp.readdir(backupsDir(root)).catch(() => [] as string[]);
    if (existing.includes(`${migrationId}.tar.gz`) || existing.includes(`${migrationId}.manifest.json`)) {
      throw new OnboardingError(ErrorCode.INVALID_INPUT, `Migration id ${migrationId} is already used by a backup. Nothing was changed.`, { next: 'Run onboarding_migrate again (it picks a new id).' });
    }
    // Rollback and recovery act only on the operations of the plan a migration applied (io/migration-record): keep it.
    if (!(await lstatOrNull(planFile(root, plan.planId)))) await savePlan(root, plan);
    await writeJournal(root, journal);
    crash('journal-backing-up-written');
    try {
      manifest = await createBackup(root, { migrationId, plan, crashAt: crash, guard, ...(opts.now ? { now: opts.now } : {}) });
    } catch (e) {
      // The clean-up goes through the same containment as the backup: a state folder (or
      // `backups/`) that now resolves outside is not cleaned through; the backup's own error says why.
      await discardBackup(root, migrationId).catch(unlessOutside);
      await clearJournal(root).catch(unlessOutside);
      throw e;
    }
    progress('backup');

    await writeJournal(root, { ...journal, phase: 'applying', createdDirs: manifest.createdDirs, updatedAt: new Date().toISOString() });
    crash('journal-applying-written');
    let problems: string[];
    try {
      await applyOperations(root, plan, manifest, migrationId, crash, progress);
      problems = await verifyOnDisk(root, plan, sources, opts.verify ?? ((s, o) => verifyLossless(plan, s, o)));
    } catch (e) {
      await undoFailed(root, manifest, journal);
      if (e instanceof OnboardingError) {
        throw new OnboardingError(e.code, `${e.message.replace(/ Nothing was changed\.$/, '')} The files already written were put back from the backup. Nothing was changed.`, {
          ...(e.next !== undefined ? { next: e.next } : {}),
          cause: e,
        });
      }
      throw new OnboardingError(ErrorCode.INTERNAL, `Migration ${migrationId} failed while writing (${(e as Error).message}); the workspace was restored from the backup. Nothing was changed.`, {
        next: 'Fix the cause (disk space, permissions) and run onboarding_migrate again.',
        cause: e,
      });
    }
    if (problems.length > 0) {
      await undoFailed(root, manifest, journal);
      throw new OnboardingError(
        ErrorCode.VERIFY_FAILED,
        `The files written by migration ${migrationId} failed the on-disk check (${problems.join('; ')}), so the workspace was restored from the backup. Nothing was changed.`,
        { next: 'Report this as a bug, with the plan file; run onboarding_propose again.', details: { problems } },
      );
    }
    crash('verified');
    progress('verified');

    await writeJournal(root, { ...journal, phase: 'done', createdDirs: manifest.createdDirs, updatedAt: new Date().toISOString() });
    crash('journal-done-written');
    await recordMigrated(root, manifest, opts.now ?? new Date());
    crash('state-recorded');
    await sweepSidecars(root, plan.operations.map((op) => op.path));
    crash('cleanup-done');
    await clearJournal(root);
    crash('journal-cleared');
    progress('done');
    return {
      migrationId,
      backup: backupRelPaths(migrationId),
      written: manifest.written,
      verified: true,
    };
  } finally {
    if (!opts.lock) await lock.release();
  }
}

