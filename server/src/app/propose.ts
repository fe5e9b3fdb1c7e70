/**
 * The read side shared by MCP and CLI: snapshot -> analyze (app/analyze.ts) -> buildPlan -> store. No SDK imports.
 */
import { promises as fsp } from 'node:fs';
import { buildOnboardingPlan } from '../core/agents/plan.js';
import type { Analysis, Snapshot } from '../core/types.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import type { AnyOverride, Plan } from '../schemas/plan.js';
import { snapshotAndAnalyze } from './analyze.js';
import { RealInsideGuard, resolveInside } from '../io/workspace.js';
import { savePlan } from '../io/plans.js';
import { VERSION } from '../runtime/version.js';
import { updateState } from '../io/state.js';

export async function propose(root: string, overrides: readonly AnyOverride[] | undefined, now = new Date().toISOString()): Promise<{ plan: Plan; planFile: string; analysis: Analysis; snapshot: Snapshot }> {
  const { snapshot, analysis } = await snapshotAndAnalyze(root);
  if (!snapshot.sources.some((s) => s.kind === 'copilot-repo') && !snapshot.sources.some((s) => s.kind === 'copilot-path')) {
    const refused = snapshot.refused.find((r) => r.kind === 'copilot-repo');
    if (refused) {
      throw new OnboardingError(ErrorCode.SOURCE_REFUSED, `${refused.path} cannot be read safely: ${refused.reason}.`, { next: 'Fix the file (see the reason) and run onboarding_propose again.' });
    }
  }
  // Other agents' files alone make a plan too (converted, or kept with the reason): analyze and propose agree.
  if (!snapshot.sources.length) {
    throw new OnboardingError(ErrorCode.NO_SOURCES, "No instruction file was found in the workspace: no .github/copilot-instructions.md, .github/instructions/*.instructions.md, nor another agent's file (AGENTS.md, CLAUDE.md, GEMINI.md, Cursor, Windsurf or Cline rules).", {
      next: 'Check the workspace folder (--workspace, COPILOT_ONBOARDING_WORKSPACE or the client root).',
    });
  }
  const plan = buildOnboardingPlan({ snapshot, analysis, overrides: overrides ?? [], toolVersion: VERSION });
  await assertApplicable(root, plan);
  const planFile = await savePlan(root, plan);
  await updateState(
    root,
    (s) => {
      s.status = 'proposed';
      s.pattern = plan.pattern;
      s.currentPlan = { planId: plan.planId, sha256: plan.sha256, createdAt: now };
      if (s.approval && s.approval.planSha256 !== plan.sha256) s.approval = null;
    },
    now,
  );
  return { plan, planFile, analysis, snapshot };
}

/**
 * Refuse, at propose time, a plan that migrate could never apply: a file it modifies or
 * deletes that is a symlink (the migration would replace the link), or an output whose real
 * location is outside the workspace (e.g. `.github/instructions` linked elsewhere).
 */
async function assertApplicable(root: string, plan: Plan): Promise<void> {
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
