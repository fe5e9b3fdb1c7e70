/**
 * `.copilot-state/plans/<planId>.json`: every proposal, in full, as JSON. The file's bytes are
 * not what is hashed: the plan's identity is `planHash` (canonical JSON without the contents,
 * each bound by its operation's sha256), which loadPlan recomputes from the parsed plan, so the
 * plan is canonicalized once, when it is sealed, and written with plain JSON.stringify.
 */
import path from 'node:path';
import { canonicalJson, sha256Hex } from '../core/canonical.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { contentMatches, planHash } from '../core/plan.js';
import { PlanSchema, type Plan } from '../schemas/plan.js';
import { atomicWriteFile } from './durable.js';
import { planFile } from './layout.js';
import { assertStateWrite, readRegularFile, unlessMissing } from './workspace.js';

function planPath(root: string, planId: string): string {
  if (!/^[0-9a-f]{16}$/.test(planId)) {
    throw new OnboardingError(ErrorCode.INVALID_INPUT, `"${planId}" is not a plan id (16 hex characters).`, { next: 'Use the planId returned by onboarding_propose.' });
  }
  return planFile(root, planId);
}

export async function savePlan(root: string, plan: Plan): Promise<string> {
  const file = planPath(root, plan.planId);
  await assertStateWrite(root, file); // safety: plan-write-recheck
  await atomicWriteFile(file, JSON.stringify(plan));
  return path.relative(root, file).split(path.sep).join('/');
}

/** Load a stored plan and check that it still hashes to its id: an edited plan is refused. */
export async function loadPlan(root: string, planId: string): Promise<Plan> {
  const file = planPath(root, planId);
  // Never through a symlink, FIFO or device (a repository can ship `plans/<id>.json` -> /dev/zero
  // or -> a file outside): savePlan writes regular files only.
  const data = await unlessMissing(() => readRegularFile(file));
  if (data === null) throw new OnboardingError(ErrorCode.PLAN_NOT_FOUND, `Plan ${planId} does not exist in .copilot-state/plans/.`, { next: 'Run onboarding_propose to make a plan.' });
  if (!Buffer.isBuffer(data)) { // safety: plan-read-regular
    throw new OnboardingError(ErrorCode.PLAN_CORRUPT, `Plan ${planId} is not a regular file in .copilot-state/plans/ (a symlink, folder or device); it was not read.`, { next: 'Run onboarding_propose again to make a fresh plan.' });
  }
  const text = data.toString('utf8');
  let parsed;
  try {
    parsed = PlanSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = null;
  }
  if (!parsed?.success) {
    throw new OnboardingError(ErrorCode.PLAN_CORRUPT, `Plan ${planId} is corrupted (not a valid plan file).`, { next: 'Run onboarding_propose again to make a fresh plan.' });
  }
  const { planId: id, sha256, ...body } = parsed.data;
  if (planHash(body) !== sha256 || sha256.slice(0, 16) !== id || id !== planId || !body.operations.every(contentMatches)) {
    // Before plan hashes left the file contents out, the whole body was hashed.
    const older = sha256Hex(canonicalJson(body)) === sha256 ? ' It was made by an earlier version of copilot-onboarding, which hashed plans differently.' : '';
    throw new OnboardingError(ErrorCode.PLAN_CORRUPT, `Plan ${planId} was modified after it was proposed (its content no longer matches its SHA-256).${older}`, {
      next: 'Run onboarding_propose again; an approval applies only to the exact plan the human saw.',
    });
  }
  return parsed.data;
}
