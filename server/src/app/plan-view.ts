/**
 * What the plan view (mcp/plan-view.ts) shows beyond propose's bounded facts, complete (no list
 * is cut): every file the plan writes with its globs and how many workspace files each matches,
 * the sections that stay repository-wide, and the diff of the repository-wide file (bounded, see
 * core/repo-wide-diff.ts). Part of propose's result on both channels (the CLI's `propose --json`
 * equals the tool's structured content).
 */
import { REPO_WIDE_PATH, splitApplyTo } from '../core/copilot-format.js';
import { FileIndex } from '../core/file-index.js';
import { repoWideDiff, type RepoWideDiff } from '../core/repo-wide-diff.js';
import type { Snapshot } from '../core/types.js';
import type { Plan } from '../schemas/plan.js';

export interface PlanViewData {
  files: Array<{ path: string; op: 'create' | 'modify' | 'delete'; size: number; globs: Array<{ glob: string; matches: number }>; sections: string[] }>;
  repoWide: Array<{ title: string; source: string }>;
  repoWideDiff: RepoWideDiff | null;
  filesTruncated: boolean;
}

export function planViewData(plan: Plan, snapshot: Pick<Snapshot, 'files' | 'filesTruncated' | 'sources'>): PlanViewData {
  const index = new FileIndex(snapshot.files);
  const before = snapshot.sources.find((s) => s.path === REPO_WIDE_PATH)?.bytes ?? new Uint8Array();
  return {
    files: plan.operations.map((o) => {
      const into = plan.sections.filter((s) => s.destination === o.path);
      const globs = [...new Set(into.flatMap((s) => (s.applyTo ? splitApplyTo(s.applyTo) : [])))];
      return { path: o.path, op: o.op, size: o.size, globs: globs.map((glob) => ({ glob, matches: index.stat(glob).count })), sections: into.map((s) => s.title) };
    }),
    repoWide: plan.sections.filter((s) => s.applyTo === null).map((s) => ({ title: s.title, source: s.sourcePath })),
    repoWideDiff: repoWideDiff(plan, before),
    filesTruncated: snapshot.filesTruncated,
  };
}
