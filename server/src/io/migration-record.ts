/**
 * A finished or interrupted migration as rollback and recovery may act on it: its backup
 * manifest, the plan the manifest names, and the backup's contents, each checked against the
 * others before anything is written.
 *
 * Security: everything under `.copilot-state/` can be written by anyone with workspace access,
 * and a manifest, a journal or a plan that hashes to itself proves nothing (the formulas are
 * public). So the paths an undo may write are never read from the manifest or the journal: they
 * are the operations of the migration's plan (loaded through loadPlan, which checks its hash and
 * every content), confined to what a plan may touch (core/confine assertConfined: the plan's
 * sources and `.github/instructions/**\/*.instructions.md`), and a manifest or journal that
 * lists anything else is refused, naming the paths, before a file is touched. The backed-up
 * bytes are bound to the plan too: each must hash to what the plan read before it changed the file.
 */
import { assertConfined, recordMismatch } from '../core/confine.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import type { Journal } from '../schemas/journal.js';
import type { Manifest } from '../schemas/manifest.js';
import type { Plan } from '../schemas/plan.js';
import { loadVerifiedBackup, readManifest } from './backup.js';
import { backupRelPaths } from './layout.js';
import { loadPlan } from './plans.js';

const NEXT = 'Restore .copilot-state/backups/ and .copilot-state/plans/ from a copy, or restore the instruction files from version control.';

/** The plan a migration applied, as its record names it; refuses (naming why) a plan that cannot be the one. */
async function namedPlan(planId: string, planSha256: string | null, root: string, what: string): Promise<Plan> {
  let plan: Plan;
  try {
    plan = await loadPlan(root, planId);
  } catch (e) {
    if (!(e instanceof OnboardingError)) throw e;
    throw new OnboardingError(e.code, `${what} cannot be undone: its plan cannot be used (${e.message}) No file was touched.`, { next: NEXT, cause: e });
  }
  if (planSha256 !== null && plan.sha256 !== planSha256) {
    throw new OnboardingError(ErrorCode.BACKUP_CORRUPT, `${what} names plan ${planId} with sha256 ${planSha256.slice(0, 12)}…, but that plan hashes to ${plan.sha256.slice(0, 12)}…. No file was touched.`, { next: NEXT });
  }
  assertConfined(plan);
  return plan;
}

function refuse(what: string, record: string, planId: string, problems: string[]): OnboardingError {
  return new OnboardingError(
    ErrorCode.BACKUP_CORRUPT,
    `${what}: ${record} does not match plan ${planId}, the plan the migration applied (${problems.join('; ')}). Rollback and recovery act only on the plan's own paths, so nothing is done. No file was touched.`,
    { next: NEXT, details: { problems } },
  );
}

/** The plan of a migration, checked against its manifest (see the module comment). */
export async function recordedPlan(root: string, manifest: Manifest): Promise<Plan> {
  const what = `Migration ${manifest.migrationId}`;
  const plan = await namedPlan(manifest.planId, manifest.planSha256, root, what);
  const problems = recordMismatch(plan, {
    planId: manifest.planId,
    before: manifest.files,
    creates: manifest.creates,
    ops: manifest.written,
    createdDirs: manifest.createdDirs,
  });
  if (problems.length) throw refuse(what, `its backup manifest ${backupRelPaths(manifest.migrationId).manifest}`, plan.planId, problems); // safety: undo-manifest-matches-plan
  return plan;
}

/** The plan a journal names, checked against the journal's operations. */
export async function journalPlan(root: string, journal: Journal): Promise<Plan> {
  const what = `The ${journal.kind === 'migrate' ? 'migration' : 'rollback'} ${journal.migrationId} left in the journal`;
  const plan = await namedPlan(journal.planId, null, root, what);
  const problems = recordMismatch(plan, { planId: journal.planId, ops: journal.ops, createdDirs: journal.createdDirs });
  if (problems.length) throw refuse(what, 'the journal .copilot-state/journal.json', plan.planId, problems); // safety: undo-journal-matches-plan
  return plan;
}

export interface CheckedMigration {
  manifest: Manifest;
  plan: Plan;
  /** The backed-up bytes by path, verified against the manifest (and so against the plan). */
  contents: Map<string, Buffer>;
}

/**
 * A migration's manifest, its plan and its backup contents, all checked: refuses (BACKUP_MISSING,
 * BACKUP_CORRUPT, PLAN_NOT_FOUND, PLAN_CORRUPT, PLAN_NOT_DERIVABLE) with nothing written.
 */
export async function loadMigration(root: string, migrationId: string): Promise<CheckedMigration> {
  const manifest = await readManifest(root, migrationId);
  const plan = await recordedPlan(root, manifest);
  return { manifest, plan, contents: await loadVerifiedBackup(root, manifest) };
}
