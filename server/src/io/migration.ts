/**
 * Crash-safe migrate and rollback (CONTRACT §6).
 *
 * migrate: lock → finish any interrupted work → re-check every hash the plan recorded →
 * journal `backing-up` → tar.gz backup + manifest, read back and verified → journal
 * `applying` → make new folders → stage every new content in a side file next to its
 * target, then make them all durable at once (io/durable.ts) → rename each into place (a
 * delete renames the target to a trash side file) → fsync the folders → verify on disk (every written hash, then the lossless proof)
 * → journal `done` → remove side files → clear the journal → unlock.
 *
 * If the process dies anywhere in between, recoverInterrupted() (run at server start and
 * before each tool) reads the journal: `backing-up` or `applying` → the workspace is put
 * back exactly as before from the verified backup; `done` → only side files are removed;
 * `rolling-back` → the rollback is finished. Every step of the undo is idempotent.
 *
 * Fault injection: every step calls `crashAt(point)`. The default hook reads the environment
 * variable COPILOT_ONBOARDING_CRASH_AT and, when it equals the point's name, kills the
 * process with SIGKILL (no clean-up handlers run, exactly like `kill -9` or a power cut
 * after the OS has the data). test/integration/crash.test.ts drives it for every point;
 * CRASH_POINTS lists the names.
 */
import { closeSync, fchmodSync, linkSync, lstatSync, openSync, promises as fsp, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sha256Hex } from '../core/canonical.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { verifyLossless } from '../core/plan.js';
import { JOURNAL_FORMAT, type Journal, type JournalOp } from '../schemas/journal.js';
import { MigrationIdSchema, isSafeRelPath, type Manifest } from '../schemas/manifest.js';
import { PlanSchema, type Plan } from '../schemas/plan.js';
import { backupRelPaths, backupsDir, createBackup, loadBackup, readManifest, restoreContents } from './backup.js';
import { clearJournal, readJournal, sidecarPath, sweepSidecars, writeJournal } from './journal.js';
import { acquireLock, processAlive, readLock } from './lock.js';
import { syncFiles } from './durable.js';
import { forEachLimit, fsyncDir, inSlices, IO_CONCURRENCY, mapLimit, RealInsideGuard, resolveInside } from './workspace.js';

/** Environment variable of the fault-injection hook (tests only; see the module comment). */
export const CRASH_ENV = 'COPILOT_ONBOARDING_CRASH_AT';

/**
 * Every named crash point, in order. `-N` points are numbered from 1 per kind of step
 * (staged-1 is the first staged file, renamed-2 the second created/modified file moved into
 * place, deleted-1 the first deletion, rb-restored-1 the first backed-up file put back…).
 */
export const CRASH_POINTS = {
  migrate: [
    'lock-acquired',
    'after-stale-check',
    'journal-backing-up-written',
    'backup-archive-written',
    'backup-manifest-written',
    'backup-verified',
    'journal-applying-written',
    'dirs-created',
    'staged-N',
    'staged-synced',
    'renamed-N',
    'deleted-N',
    'dirs-synced',
    'verified',
    'journal-done-written',
    'cleanup-done',
    'journal-cleared',
  ],
  rollback: ['rb-lock-acquired', 'rb-backup-verified', 'rb-journal-written', 'rb-restored-N', 'rb-removed-N', 'rb-sidecars-swept', 'rb-dirs-removed', 'rb-journal-cleared'],
} as const;

export type CrashHook = (point: string) => void;

/** The production hook: SIGKILL this process when COPILOT_ONBOARDING_CRASH_AT names the point. */
export function crashFromEnv(point: string): void {
  const want = process.env[CRASH_ENV];
  if (want !== undefined && want !== '' && want === point) process.kill(process.pid, 'SIGKILL');
}

/** The on-disk lossless proof: original source bytes and what is on disk now (null = absent). */
export type OutputVerifier = (sources: Map<string, Uint8Array>, outputs: Map<string, Uint8Array | null>) => { ok: boolean; errors: string[] };

export type ProgressHook = (step: string, done: number, total: number) => void;

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
}

export interface WrittenFile {
  path: string;
  op: 'create' | 'modify' | 'delete';
  size: number;
  /** null for delete. */
  sha256: string | null;
}

export interface MigrationResult {
  migrationId: string;
  /** Workspace-relative paths. */
  backup: { archive: string; manifest: string };
  written: WrittenFile[];
  verified: true;
}

export interface RollbackResult {
  migrationId: string;
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

export type RecoveryStatus = 'none' | 'clean' | 'rolled-back' | 'completed-rollback' | 'busy';

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

const noop = () => undefined;

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
    if (op.content === null || op.sha256 === null) throw bad('has no content');
    const bytes = Buffer.from(op.content, 'utf8');
    if (sha256Hex(bytes) !== op.sha256 || bytes.length !== op.size) throw bad('has content that does not match its recorded size and sha256');
    if (op.op === 'modify' && op.previousSha256 === null) throw bad('does not record the hash of the file it replaces');
    if (op.op === 'create' && op.previousSha256 !== null) throw bad('records a previous hash for a file it creates');
  }
}

async function lstatOrNull(abs: string) {
  try {
    return await fsp.lstat(abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Re-read every source and target: refuse if anything differs from what the plan recorded. Returns the source bytes. */
async function checkFresh(root: string, plan: Plan, guard: RealInsideGuard): Promise<Map<string, Uint8Array>> {
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

function journalOps(plan: Plan): JournalOp[] {
  return plan.operations.map((op) => ({ op: op.op, path: op.path, previousSha256: op.previousSha256, sha256: op.op === 'delete' ? null : op.sha256 }));
}

/** Remove a migration's backup files (only for a migration that never got past its backup). */
async function discardBackup(root: string, migrationId: string): Promise<void> {
  const dir = backupsDir(root);
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (
      name === `${migrationId}.tar.gz` ||
      name === `${migrationId}.manifest.json` ||
      name === `.${migrationId}.tar.gz.tmp` ||
      (name.startsWith(`${migrationId}.manifest.json.`) && name.endsWith('.tmp'))
    ) {
      await fsp.rm(path.join(dir, name), { force: true });
    }
  }
  await fsyncDir(dir);
}

async function hashFile(abs: string): Promise<string | null> {
  try {
    return sha256Hex(await fsp.readFile(abs));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Create a side file that must not exist and write it (a leftover of an earlier attempt is replaced); syncFiles makes the lot durable. */
function writeStaged(stage: string, content: string, mode: number | undefined): void {
  let fd: number;
  try {
    fd = openSync(stage, 'wx', 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    rmSync(stage, { force: true });
    fd = openSync(stage, 'wx', 0o644);
  }
  try {
    writeFileSync(fd, content, 'utf8');
    if (mode !== undefined) fchmodSync(fd, mode); // a modified file keeps its permissions
  } finally {
    closeSync(fd);
  }
}

/**
 * The write half of migrate; the journal says `applying` while this runs. Every staged file
 * is written (synchronously, in time slices) and then made durable all at once (syncFiles:
 * one syncfs, or an fsync per file) before the first one is moved into place; then the moves,
 * one by one in plan order; then one fsync per touched folder.
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
  const stages = writes.map((op) => sidecarPath(root, op.path, 'stage', migrationId));
  // Synchronous writes in time slices: creating a small file is page-cache and journal work
  // that measured ~0.28 ms here against ~0.4 ms through the thread pool, 16 in flight.
  await inSlices(writes, (op, i) => {
    writeStaged(stages[i]!, op.content ?? '', modes.get(op.path));
    crash(`staged-${i + 1}`);
  });
  await syncFiles(stages);
  crash('staged-synced');

  // The moves, in plan order, with synchronous calls in time slices (a rename or link is a
  // metadata change in the page cache: cheaper than the thread-pool round trip it would need).
  let renamed = 0;
  let deleted = 0;
  const touched = new Set<string>();
  const hashNow = (abs: string): string | null => {
    try {
      return sha256Hex(readFileSync(abs));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  };
  await inSlices(plan.operations, (op) => {
    const abs = resolveInside(root, op.path);
    touched.add(path.dirname(abs));
    if (op.op === 'create') {
      const stage = sidecarPath(root, op.path, 'stage', migrationId);
      // link, not rename: a file that appeared meanwhile is never overwritten.
      try {
        linkSync(stage, abs);
        unlinkSync(stage);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') throw stale(op.path, 'appeared', plan.planId);
        if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw e;
        if (lstatSync(abs, { throwIfNoEntry: false })) throw stale(op.path, 'appeared', plan.planId);
        renameSync(stage, abs);
      }
      crash(`renamed-${++renamed}`);
    } else if (op.op === 'modify') {
      // Last look right before replacing: someone's edit made since the check is never overwritten.
      if (hashNow(abs) !== op.previousSha256) throw stale(op.path, 'changed', plan.planId);
      renameSync(sidecarPath(root, op.path, 'stage', migrationId), abs);
      crash(`renamed-${++renamed}`);
    } else {
      if (hashNow(abs) !== op.previousSha256) throw stale(op.path, 'changed', plan.planId);
      renameSync(abs, sidecarPath(root, op.path, 'trash', migrationId));
      crash(`deleted-${++deleted}`);
    }
    progress(`${op.op} ${op.path}`);
  });
  await Promise.all([...touched].map((d) => fsyncDir(d)));
  crash('dirs-synced');
}

/** What is on disk now against the plan: every hash, then the caller's proof. Returns the problems. */
async function verifyOnDisk(root: string, plan: Plan, sources: Map<string, Uint8Array>, verify: OutputVerifier | undefined): Promise<string[]> {
  const outputs = new Map<string, Uint8Array | null>();
  const errors: string[] = [];
  // Every file is read back from disk, with synchronous calls in time slices (hundreds of
  // small files: a thread-pool round trip per call would cost more than the reads).
  await inSlices(plan.operations, (op) => {
    const abs = resolveInside(root, op.path);
    const st = lstatSync(abs, { throwIfNoEntry: false });
    if (op.op === 'delete') {
      if (st) errors.push(`${op.path} still exists`);
      outputs.set(op.path, null);
      return;
    }
    if (!st?.isFile()) {
      errors.push(`${op.path} is missing`);
      outputs.set(op.path, null);
      return;
    }
    const bytes = readFileSync(abs);
    const sha = sha256Hex(bytes);
    if (bytes.length !== op.size || sha !== op.sha256) errors.push(`${op.path} does not hold the planned bytes (sha256 ${sha.slice(0, 12)}…, expected ${op.sha256?.slice(0, 12)}…)`);
    outputs.set(op.path, bytes);
  });
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

/**
 * Put the workspace back as it was before a migration, from verified backup contents.
 * Idempotent: files that already hold their original bytes are left alone, absent created
 * files are skipped. `removeEdited` false (automatic recovery, no human asked) keeps a
 * created path whose content is not what the migration wrote.
 */
async function undo(
  root: string,
  manifest: Manifest,
  contents: Map<string, Buffer>,
  opts: { crash: CrashHook; removeEdited: boolean; progress?: (step: string) => void },
): Promise<Omit<RollbackResult, 'migrationId'>> {
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
  for (const rel of manifest.creates) await guard.check(path.dirname(resolveInside(root, rel)));
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
      else if (!opts.removeEdited && (!st.isFile() || (await hashFile(abs)) !== written.get(rel)?.sha256)) fate[k] = 'kept';
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

  const lock = await acquireLock(root, { owner: `migrate ${migrationId}` });
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
      ops: journalOps(plan),
      createdDirs: [],
    };
    let manifest: Manifest;
    const existing = await fsp.readdir(backupsDir(root)).catch(() => [] as string[]);
    if (existing.includes(`${migrationId}.tar.gz`) || existing.includes(`${migrationId}.manifest.json`)) {
      throw new OnboardingError(ErrorCode.INVALID_INPUT, `Migration id ${migrationId} is already used by a backup. Nothing was changed.`, { next: 'Run onboarding_migrate again (it picks a new id).' });
    }
    await writeJournal(root, journal);
    crash('journal-backing-up-written');
    try {
      manifest = await createBackup(root, { migrationId, plan, crashAt: crash, guard, ...(opts.now ? { now: opts.now } : {}) });
    } catch (e) {
      await discardBackup(root, migrationId);
      await clearJournal(root);
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
    await sweepSidecars(root, plan.operations.map((op) => op.path));
    crash('cleanup-done');
    await clearJournal(root);
    crash('journal-cleared');
    progress('done');
    return {
      migrationId,
      backup: backupRelPaths(migrationId),
      written: plan.operations.map((op) => ({
        path: op.path,
        op: op.op,
        size: op.op === 'delete' ? 0 : op.size,
        sha256: op.op === 'delete' ? null : op.sha256,
      })),
      verified: true,
    };
  } finally {
    await lock.release();
  }
}

/** A migration failed after it began writing: undo from its backup (journal says so first, so a crash here is finished later). */
async function undoFailed(root: string, manifest: Manifest, journal: Journal): Promise<void> {
  try {
    await writeJournal(root, { ...journal, phase: 'rolling-back', createdDirs: manifest.createdDirs, updatedAt: new Date().toISOString() });
    const loaded = await loadBackup(root, manifest);
    if (!loaded.ok) throw new Error(loaded.reason);
    await undo(root, manifest, loaded.contents, { crash: noop, removeEdited: false });
    await clearJournal(root);
  } catch (e) {
    throw new OnboardingError(
      ErrorCode.INTERNAL,
      `Migration ${manifest.migrationId} failed and could not be undone automatically (${(e as Error).message}). The journal is kept; the next start retries the undo.`,
      { next: `Restart the server or run \`copilot-onboarding status\`; the backup is ${backupRelPaths(manifest.migrationId).archive}.`, cause: e },
    );
  }
}

/** Undo a migration: restore every backed-up file byte for byte, remove what it created. */
export async function rollback(root: string, migrationId: string, opts: { crashAt?: CrashHook; onProgress?: ProgressHook } = {}): Promise<RollbackResult> {
  const crash = opts.crashAt ?? crashFromEnv;
  const lock = await acquireLock(root, { owner: `rollback ${migrationId}` });
  try {
    crash('rb-lock-acquired');
    await recoverLocked(root);
    const manifest = await readManifest(root, migrationId);
    const loaded = await loadBackup(root, manifest);
    if (!loaded.ok) {
      throw new OnboardingError(loaded.code, `The backup of migration ${migrationId} failed its check: ${loaded.reason}. No file was touched.`, {
        next: 'Restore .copilot-state/backups/ from a copy, or restore the instruction files from version control.',
      });
    }
    crash('rb-backup-verified');
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
    const res = await undo(root, manifest, loaded.contents, { crash, removeEdited: true, progress });
    await clearJournal(root);
    crash('rb-journal-cleared');
    progress('done');
    return { migrationId, ...res };
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
async function recoverLocked(root: string): Promise<RecoveryReport> {
  const j = await readJournal(root);
  if (!j) return { status: 'none', message: 'No interrupted migration or rollback.' };
  const id = j.migrationId;
  const paths = j.ops.map((o) => o.path);
  if (j.kind === 'migrate' && j.phase === 'done') {
    await sweepSidecars(root, paths);
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
      const res = await undo(root, manifest, loaded.contents, { crash: noop, removeEdited: j.kind === 'rollback' });
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
