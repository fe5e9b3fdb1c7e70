/**
 * Where a plan may write. This tool only ever moves sections of Copilot's own instruction files,
 * so a plan creates files named `*.instructions.md` under `.github/instructions/` and modifies or
 * deletes only files it recorded as its sources, whose hashes the write engine checks first (a
 * plan made here records only `.github/copilot-instructions.md` and path-specific files; the
 * re-derivation also refuses any other recorded source).
 *
 * Security: a plan file in the state folder can be written by anyone with workspace access (an
 * agent included). Checking every operation's path here, both when a gate re-derives the plan and
 * in the write engine right before writing, means a forged plan can never reach a workflow, a
 * package manifest or any other file, whatever else it claims.
 */
import { INSTRUCTIONS_DIR, INSTRUCTIONS_SUFFIX, REPO_WIDE_PATH } from './copilot-format.js';
import { ErrorCode, OnboardingError } from './errors.js';
import type { Plan } from '../schemas/plan.js';

/** `.github/copilot-instructions.md`, or `.github/instructions/…/<name>.instructions.md` with plain path segments. */
export function isInstructionFile(p: string): boolean {
  return p === REPO_WIDE_PATH || isInstructionsDirFile(p);
}

function isInstructionsDirFile(p: string): boolean {
  const prefix = `${INSTRUCTIONS_DIR}/`;
  if (!p.startsWith(prefix) || !p.endsWith(INSTRUCTIONS_SUFFIX)) return false;
  const segs = p.slice(prefix.length).split('/');
  return segs.every((s) => s !== '' && s !== '.' && s !== '..' && !/[\\\0]/.test(s)) && segs[segs.length - 1]!.length > INSTRUCTIONS_SUFFIX.length;
}

/** The operations of `plan` that write outside what a plan may touch, as "op path" strings. */
function unconfinedOperations(plan: Pick<Plan, 'operations' | 'sources'>): string[] {
  const sources = new Set(plan.sources.map((s) => s.path));
  return plan.operations.filter((op) => (op.op === 'create' ? !isInstructionsDirFile(op.path) : !sources.has(op.path))).map((op) => `${op.op} ${op.path}`);
}

/** Refuse (PLAN_NOT_DERIVABLE) a plan that would write anywhere else. Nothing is read or written. */
export function assertConfined(plan: Pick<Plan, 'planId' | 'operations' | 'sources'>): void {
  const bad = unconfinedOperations(plan);
  if (bad.length === 0) return;
  throw new OnboardingError(
    ErrorCode.PLAN_NOT_DERIVABLE,
    `Plan ${plan.planId} would ${bad.slice(0, 5).join(', ')}${bad.length > 5 ? ', …' : ''}: this tool only creates ${INSTRUCTIONS_DIR}/*${INSTRUCTIONS_SUFFIX} and changes only the files a plan read, so this plan was not made by it. Nothing was changed.`,
    { next: 'Delete the plan file and run onboarding_propose again.', details: { operations: bad } },
  );
}
