/**
 * A plan is a pure function of the source bytes, the plan's stored overrides and the tool
 * version. So before a gate shows a plan to the human or applies it, the plan is made again from
 * the workspace as it is now and accepted only when its SHA-256 is identical; the gate then goes
 * on with the plan it made itself, and everything the form says (operations, lossless proof,
 * risk) is computed, never read from the file.
 *
 * Security: `.copilot-state/plans/` is writable by anyone with workspace access, and a plan file
 * that hashes to its own id proves nothing (any writer can compute the hash). Re-deriving it is
 * what stops a forged plan — one that writes a workflow or a manifest and calls itself lossless
 * and low-risk — from ever reaching the approval form or the write engine.
 */
import { buildOnboardingPlan } from '../core/agents/plan.js';
import { formatOf } from '../core/agents/formats.js';
import { canonicalJson } from '../core/canonical.js';
import { assertConfined, isInstructionFile } from '../core/confine.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import type { Snapshot } from '../core/types.js';
import type { Plan } from '../schemas/plan.js';
import { VERSION } from '../io/package.js';
import { snapshotAndAnalyze } from './analyze.js';

const AGAIN = 'Run onboarding_propose again, then approve the new plan.';

function notDerivable(message: string, details?: Record<string, unknown>): OnboardingError {
  return new OnboardingError(ErrorCode.PLAN_NOT_DERIVABLE, `${message} Nothing was changed.`, { next: AGAIN, ...(details ? { details } : {}) });
}

/** Refuse (PLAN_STALE) when a source the plan recorded differs now, or an instruction source is new. */
export function assertSourcesFresh(plan: Plan, snapshot: Snapshot): void {
  const now = new Map(snapshot.sources.map((s) => [s.path, s.sha256]));
  const changed: string[] = [];
  for (const s of plan.sources) if (now.get(s.path) !== s.sha256) changed.push(s.path);
  // Other agents' files count once the plan records them (a plan made with core/agents/plan.ts does).
  const tracksAgents = plan.agents !== undefined;
  for (const s of snapshot.sources) if ((s.kind !== 'other-agent' || tracksAgents) && !plan.sources.some((p) => p.path === s.path)) changed.push(`${s.path} (new)`);
  if (changed.length) throw new OnboardingError(ErrorCode.PLAN_STALE, `Stale plan: ${changed.join(', ')} changed since plan ${plan.planId} was proposed.`, { next: AGAIN });
}

/** The top-level fields in which two plans differ (for the message). */
function differences(a: Plan, b: Plan): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  keys.delete('planId');
  keys.delete('sha256');
  const get = (p: Plan, k: string): unknown => (p as unknown as Record<string, unknown>)[k];
  return [...keys].filter((k) => canonicalJson(get(a, k) ?? null) !== canonicalJson(get(b, k) ?? null)).sort();
}

/**
 * Make `plan` again from the workspace and its overrides; return the plan made here when it is
 * identical, else refuse: PLAN_STALE when a source changed since it was proposed,
 * PLAN_NOT_DERIVABLE when it writes outside the instruction files, was made by another version,
 * or is simply not what this tool makes.
 */
export async function rederivePlan(root: string, plan: Plan): Promise<Plan> {
  return (await rederive(root, plan)).plan;
}

/** rederivePlan, with the snapshot the plan was made again from (the gates measure what loads where on it). */
export async function rederive(root: string, plan: Plan): Promise<{ plan: Plan; snapshot: Snapshot }> {
  assertConfined(plan);
  const foreign = plan.sources.filter((s) => !isInstructionFile(s.path) && formatOf(s.path) === null).map((s) => s.path);
  if (foreign.length) throw notDerivable(`Plan ${plan.planId} records ${foreign.slice(0, 5).join(', ')} as a source; this tool reads only instruction files (Copilot's and other agents').`);
  if (plan.toolVersion !== VERSION) {
    throw notDerivable(
      `Plan ${plan.planId} was made by ${plan.toolVersion === undefined ? 'a copilot-onboarding version that did not record itself' : `copilot-onboarding ${plan.toolVersion}`}; this is ${VERSION}, which may divide the same files differently.`,
      { planVersion: plan.toolVersion ?? null, version: VERSION },
    );
  }
  const { snapshot, analysis } = await snapshotAndAnalyze(root);
  assertSourcesFresh(plan, snapshot);
  let derived: Plan;
  try {
    derived = buildOnboardingPlan({ snapshot, analysis, overrides: plan.overrides, toolVersion: VERSION });
  } catch (e) {
    if (!(e instanceof OnboardingError)) throw e;
    throw notDerivable(`Plan ${plan.planId} cannot be made again from the workspace: ${e.message}`);
  }
  if (derived.sha256 !== plan.sha256) { // safety: plan-rederived
    const fields = differences(plan, derived);
    throw notDerivable(
      `Plan ${plan.planId} is not what copilot-onboarding ${VERSION} makes from these files and the plan's overrides (that would be plan ${derived.planId}; they differ in ${fields.join(', ') || 'their hash'}), so it was not made by this tool or was altered.`,
      { derivedPlanId: derived.planId, differs: fields },
    );
  }
  return { plan: derived, snapshot };
}
