/**
 * What the plan view (mcp/plan-view.ts) shows beyond propose's bounded facts: every file the plan
 * writes with its globs and how many workspace files each matches, the sections that stay
 * repository-wide, and the diff of the repository-wide file (core/repo-wide-diff.ts). Untrusted
 * strings (paths, globs, headings) are sanitized, never cut: no list is cut either.
 *
 * Two forms:
 * - bounded: part of propose's result on both channels (the CLI's `propose --json` equals the
 *   tool's structured content), which the model reads too, so its diff is bounded; the view
 *   falls back to it where its host cannot call the view's own data tool;
 * - whole (`wholePlanView`): the view's own data (mcp/tools/plan-view-data.ts), the same with
 *   every line of the diff, for one stored plan, made again from the workspace (app/rederive.ts)
 *   so a forged, altered or stale plan file is refused, never shown.
 */
import { REPO_WIDE_PATH, splitApplyTo } from '../core/copilot-format.js';
import { FileIndex } from '../core/file-index.js';
import { repoWideDiff, type RepoWideDiff } from '../core/repo-wide-diff.js';
import { sanitize } from '../core/sanitize.js';
import type { Snapshot } from '../core/types.js';
import type { Plan } from '../schemas/plan.js';

export interface PlanViewData {
  files: Array<{ path: string; op: 'create' | 'modify' | 'delete'; size: number; globs: Array<{ glob: string; matches: number }>; sections: string[] }>;
  repoWide: Array<{ title: string; source: string }>;
  repoWideDiff: RepoWideDiff | null;
  filesTruncated: boolean;
}

/** Escaped, never cut: the view shows every character (it wraps long lines). */
const text = (s: string): string => sanitize(s, Number.MAX_SAFE_INTEGER);

export function planViewData(plan: Plan, snapshot: Pick<Snapshot, 'files' | 'filesTruncated' | 'sources'>, { whole = false }: { whole?: boolean } = {}): PlanViewData {
  const index = new FileIndex(snapshot.files);
  const before = snapshot.sources.find((s) => s.path === REPO_WIDE_PATH)?.bytes ?? new Uint8Array();
  return {
    files: plan.operations.map((o) => {
      const into = plan.sections.filter((s) => s.destination === o.path);
      const globs = [...new Set(into.flatMap((s) => (s.applyTo ? splitApplyTo(s.applyTo) : [])))];
      return { path: text(o.path), op: o.op, size: o.size, globs: globs.map((glob) => ({ glob: text(glob), matches: index.stat(glob).count })), sections: into.map((s) => text(s.title)) };
    }),
    repoWide: plan.sections.filter((s) => s.applyTo === null).map((s) => ({ title: text(s.title), source: text(s.sourcePath) })),
    repoWideDiff: repoWideDiff(plan, before, { whole }),
    filesTruncated: snapshot.filesTruncated,
  };
}

/**
 * The whole view of stored plan `planId`: read (io/plans.ts checks its id and SHA-256), made
 * again from the workspace as it is now (PLAN_STALE when a source changed, PLAN_NOT_DERIVABLE
 * when this tool would not make it), then every line of it, and its risk reasons (propose's
 * facts cut each at 300 characters). Reads only.
 */
export async function wholePlanView(root: string, planId: string): Promise<{ planId: string; sha256: string; riskReasons: string[]; planView: PlanViewData }> {
  const [{ loadPlan }, { rederive }] = await Promise.all([import('../io/plans.js'), import('./rederive.js')]);
  const { plan, snapshot } = await rederive(root, await loadPlan(root, planId));
  return { planId: plan.planId, sha256: plan.sha256, riskReasons: plan.riskReasons.map(text), planView: planViewData(plan, snapshot, { whole: true }) };
}
