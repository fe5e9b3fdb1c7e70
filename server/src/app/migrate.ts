/**
 * The migrate gate, read like approve (app/approve.ts) and rollback (app/rollback.ts): the
 * channel checks it can ask (mcp/tools/gate.ts) → re-derive the plan → re-check the approval →
 * take the workspace lock → check the plan is still fresh (sources unchanged, no destination
 * appeared) → ask the human (the channel's form, traced before it returns) → backup and apply
 * under the same lock → the migration is recorded in onboarding.json before its journal is
 * cleared (io/apply).
 *
 * Everything that can refuse for a reason known in advance (BUSY, a stale plan, a destination
 * that appeared) refuses before the question, and nothing can take the lock while the
 * question is open. Security: an approval counts as used only by a migration that started
 * (core/approval findApproval), so a refusal after the human confirmed, e.g. a file edited
 * while the form was open or a disk full during the backup, leaves the approval valid and
 * nothing changed.
 */
import type { Plan } from '../schemas/plan.js';
import type { Snapshot } from '../core/types.js';
import { migrate, checkFresh, type MigrationResult } from '../io/apply.js';
import { acquireLock } from '../io/lock.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { assertFresh, checkApproval, newMigrationId, resolvePlan } from './gate-checks.js';
import type { GateAnswer } from './rollback.js';

export interface PreparedMigrate {
  plan: Plan;
  /** The workspace the plan was re-derived from (what loads where is computed over it). */
  snapshot: Snapshot;
  migrationId: string;
  /** File name of the approve trace this migration relies on. */
  approvalTrace: string;
}

export type MigrateGateResult<A extends GateAnswer> =
  | { kind: 'not-confirmed'; prep: PreparedMigrate; answer: A }
  | { kind: 'migrated'; prep: PreparedMigrate; answer: A; result: MigrationResult };

export async function migrateGate<A extends GateAnswer>(
  root: string,
  planId: string | undefined,
  ask: (prep: PreparedMigrate) => Promise<A>,
  opts: {
    ttlMs: number;
    now: () => number;
    onPlan?: ((plan: Plan) => void) | undefined;
    onProgress?: ((step: string, done: number, total: number) => void) | undefined;
  },
): Promise<MigrateGateResult<A>> {
  const { plan, snapshot } = await resolvePlan(root, planId);
  opts.onPlan?.(plan);
  if (plan.operations.length === 0) {
    throw new OnboardingError(ErrorCode.NOTHING_TO_MIGRATE, `Plan ${plan.planId} has no operations.`, { next: 'Nothing to do.' });
  }
  const approval = await checkApproval(root, plan, opts.ttlMs, new Date(opts.now()));
  const migrationId = newMigrationId(plan);
  const lock = await acquireLock(root, { owner: `migrate ${migrationId}` });
  try {
    await assertFresh(root, plan); // safety: migrate-fresh-snapshot
    await checkFresh(root, plan); // safety: migrate-fresh-disk
    const prep: PreparedMigrate = { plan, snapshot, migrationId, approvalTrace: approval.trace.file };
    const answer = await ask(prep);
    if (!answer.confirmed) return { kind: 'not-confirmed', prep, answer };
    const result = await migrate(root, plan, { migrationId, lock, ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) });
    return { kind: 'migrated', prep, answer, result };
  } finally {
    await lock.release();
  }
}
