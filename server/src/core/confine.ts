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

/** What a backup manifest or a journal says a migration touches, compared with its plan. */
type RecordedPaths = {
  planId: string;
  /** Modify and delete targets with the hash they held before (manifest `files`). */
  before?: ReadonlyArray<{ path: string; sha256: string }>;
  /** Created paths (manifest `creates`). */
  creates?: readonly string[];
  /** Every operation with what it writes (manifest `written`, journal `ops`). */
  ops: ReadonlyArray<{ op: string; path: string; sha256: string | null; previousSha256?: string | null; size?: number }>;
  createdDirs: readonly string[];
};

/**
 * Where a manifest or journal (untrusted: anyone with workspace access can write the state
 * folder) disagrees with the plan it names: paths the plan does not touch, paths of the plan it
 * lacks, or other operations or bytes. Empty when they agree. Security: rollback and recovery
 * act only on the plan's operations; a record that says anything else is refused before a file
 * is touched.
 */
export function recordMismatch(plan: Pick<Plan, 'planId' | 'operations'>, r: RecordedPaths): string[] {
  const problems: string[] = [];
  if (r.planId !== plan.planId) problems.push(`it names plan ${r.planId}, not ${plan.planId}`); // safety: undo-record-plan-id
  const planned = new Set(plan.operations.map((op) => op.path));
  const named = [...new Set([...r.ops.map((o) => o.path), ...(r.before ?? []).map((f) => f.path), ...(r.creates ?? [])])];
  const extra = named.filter((p) => !planned.has(p));
  const lacking = plan.operations.filter((op) => !r.ops.some((o) => o.path === op.path)).map((op) => op.path);
  const differing = plan.operations
    .filter((op) => {
      const recs = r.ops.filter((o) => o.path === op.path);
      const rec = recs[0];
      if (!rec) return false;
      const before = r.before?.filter((f) => f.path === op.path) ?? [];
      return (
        recs.length > 1 ||
        rec.op !== op.op ||
        rec.sha256 !== (op.op === 'delete' ? null : op.sha256) ||
        (rec.previousSha256 !== undefined && rec.previousSha256 !== op.previousSha256) ||
        (rec.size !== undefined && rec.size !== (op.op === 'delete' ? 0 : op.size)) ||
        (r.before !== undefined && (op.op === 'create' ? before.length !== 0 : before.length !== 1 || before[0]!.sha256 !== op.previousSha256)) ||
        (r.creates !== undefined && r.creates.filter((c) => c === op.path).length !== (op.op === 'create' ? 1 : 0))
      );
    })
    .map((op) => op.path);
  const creates = plan.operations.filter((op) => op.op === 'create').map((op) => op.path);
  const parents = new Set(creates.flatMap((c) => c.split('/').slice(0, -1).map((_, i, segs) => segs.slice(0, i + 1).join('/'))));
  const strayDirs = r.createdDirs.filter((d) => !parents.has(d));
  if (extra.length) problems.push(`it lists ${list(extra)}, which the plan does not touch`); // safety: undo-record-extra-paths
  if (lacking.length) problems.push(`it lacks ${list(lacking)}, which the plan touches`); // safety: undo-record-lacking-paths
  if (differing.length) problems.push(`it records another operation or other bytes than the plan for ${list(differing)}`); // safety: undo-record-other-bytes
  if (strayDirs.length) problems.push(`it would remove the folders ${list(strayDirs)}, which hold no file the plan creates`); // safety: undo-record-stray-dirs
  return problems;
}

function list(paths: readonly string[]): string {
  return paths.length > 5 ? `${paths.slice(0, 5).join(', ')} and ${paths.length - 5} more` : paths.join(', ');
}
