/**
 * `explain <path>`: which instruction files apply to one path on each Copilot surface, before
 * and after the plan, and why. The plan is the current one when it is still what this tool makes
 * from the workspace (re-derived like a gate does), else one made now and not stored. Reads only.
 */
import path from 'node:path';
import { analyze } from '../core/analyze.js';
import { buildPlan } from '../core/plan.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { SURFACE_NAMES } from '../core/loads.js';
import type { Plan } from '../schemas/plan.js';
import { readSnapshot } from '../io/snapshot.js';
import { loadState } from '../io/state.js';
import { loadPlan } from '../io/plans.js';
import { VERSION } from '../io/package.js';
import { explainFile, type Explanation } from './loads.js';
import { rederivePlan } from './rederive.js';

/** `file` as a workspace-relative POSIX path; refused when it leaves the workspace. */
function relativeFile(root: string, file: string): string {
  const abs = path.resolve(root, file);
  const rel = path.relative(root, abs).split(path.sep).join('/');
  if (rel === '' || rel === '..' || rel.startsWith('../') || path.isAbsolute(rel)) {
    throw new OnboardingError(ErrorCode.INVALID_INPUT, `${JSON.stringify(file.slice(0, 200))} is not a file path inside the workspace ${root}.`, {
      next: 'Give a path relative to the workspace root, e.g. src/orders.ts.',
    });
  }
  return rel;
}

async function currentPlan(root: string): Promise<Plan | null> {
  try {
    const id = (await loadState(root)).currentPlan?.planId;
    return id ? await rederivePlan(root, await loadPlan(root, id)) : null;
  } catch (e) {
    if (e instanceof OnboardingError) return null; // stale, forged or unreadable: compare with a fresh plan instead
    throw e;
  }
}

export async function explain(root: string, file: string): Promise<Explanation> {
  const rel = relativeFile(root, file);
  const snapshot = await readSnapshot(root);
  let plan: Plan | null = await currentPlan(root);
  let source: 'current' | 'made-now' = 'current';
  if (!plan && snapshot.sources.some((s) => s.kind !== 'other-agent')) {
    plan = buildPlan({ snapshot, analysis: analyze(snapshot), overrides: [], toolVersion: VERSION });
    source = 'made-now';
  }
  return {
    workspace: root,
    path: rel,
    inTree: snapshot.files.includes(rel),
    plan: plan ? { planId: plan.planId, source } : null,
    surfaces: explainFile(snapshot, plan, rel).map((s) => ({ ...s, name: SURFACE_NAMES[s.surface] })),
  };
}
