/**
 * The results of analyze and propose, built once for every channel: the MCP tools return them
 * as `structuredContent` and the CLI prints them with `--json`, so both say exactly the same
 * thing. The text renderings are the deterministic fallback shown when no model narrates.
 * No SDK imports.
 */
import type { Analysis, RefusedSource, Snapshot } from '../core/types.js';
import type { Plan } from '../schemas/plan.js';
import type { Recovery } from './recover.js';

export interface Narration {
  source: 'sampling' | 'fallback';
  text: string;
  trace: string | null;
}

/** The narration of a channel that cannot ask a model (the CLI, or `narrate: false`). */
export function fallbackNarration(text: string): Narration {
  return { source: 'fallback', text, trace: null };
}

export function analysisFacts(workspace: string, snapshot: Snapshot, a: Analysis) {
  return {
    workspace,
    pattern: a.pattern,
    sources: a.sources,
    refused: snapshot.refused.map((r: RefusedSource) => ({ path: r.path, kind: r.kind, reason: r.reason })),
    sections: a.sections.map((s) => ({
      id: s.id,
      title: s.title,
      kind: s.kind,
      level: s.level,
      proposed: s.proposed,
      startLine: s.startLine,
      endLine: s.endLine,
      bytes: s.ranges.reduce((n, r) => n + (r.end - r.start), 0),
    })),
    problems: a.problems,
    existingInstructions: a.existingInstructions,
    otherAgentFiles: a.otherAgentFiles,
  };
}
export type AnalysisFacts = ReturnType<typeof analysisFacts>;

/** `next` is the step to suggest, named for the channel (a tool name or a command). */
export function analysisText(f: AnalysisFacts, next = 'onboarding_propose builds a plan (it changes no instruction file).'): string {
  const lines = [`Pattern: ${f.pattern}.`];
  for (const s of f.sources) lines.push(`Source ${s.path} (${s.kind}): ${s.chars.toLocaleString('en-US')} characters, ${s.lines} lines.`);
  for (const r of f.refused) lines.push(`Refused ${r.path}: ${r.reason}.`);
  if (f.sections.length) {
    lines.push(`${f.sections.length} section(s):`);
    for (const s of f.sections.slice(0, 60)) lines.push(`  ${s.id}  "${s.title}"  lines ${s.startLine}-${s.endLine}${s.proposed ? '  (proposed topic group)' : ''}`);
    if (f.sections.length > 60) lines.push(`  … and ${f.sections.length - 60} more`);
  }
  lines.push(f.problems.length ? `${f.problems.length} problem(s):` : 'No problems found.');
  for (const p of f.problems.slice(0, 30)) lines.push(`  ${p.severity} ${p.code}: ${p.message}${p.lines.length ? ` (line ${p.lines.slice(0, 6).join(', ')})` : ''}`);
  if (f.otherAgentFiles.length) lines.push(`Other agents' files found (reported only): ${f.otherAgentFiles.join(', ')}.`);
  lines.push(`Next: ${next}`);
  return lines.join('\n');
}

/** The whole structuredContent of onboarding_analyze. */
export function analyzeResult(facts: AnalysisFacts, narration: Narration, recovery: Recovery | null) {
  return { ...facts, narration, recovery };
}

export function planFacts(plan: Plan, planFile: string) {
  return {
    planId: plan.planId,
    sha256: plan.sha256,
    planFile,
    pattern: plan.pattern,
    risk: plan.risk,
    riskReasons: plan.riskReasons,
    nothingToMigrate: plan.operations.length === 0,
    operations: plan.operations.map((o) => ({ op: o.op, path: o.path, size: o.size, sha256: o.sha256 })),
    sections: plan.sections.map((s) => ({
      id: s.id,
      title: s.title,
      startLine: s.startLine,
      endLine: s.endLine,
      destination: s.destination,
      applyTo: s.applyTo,
      evidence: s.evidence,
      decidedBy: s.decidedBy,
      proposed: s.proposed,
    })),
    problems: plan.problems,
    lossless: { ok: plan.lossless.ok, coveredSources: plan.lossless.coveredSources },
  };
}
export type PlanFacts = ReturnType<typeof planFacts>;

export function planText(f: PlanFacts, next = 'onboarding_approve asks the human to approve this exact plan.'): string {
  const lines = [`Plan ${f.planId} (sha256 ${f.sha256.slice(0, 12)}…), stored in ${f.planFile}. Pattern: ${f.pattern}. Risk: ${f.risk}.`];
  if (f.nothingToMigrate) lines.push('Nothing to migrate: no section has a confident path scope, or the repository is already migrated.');
  lines.push('', '| section | lines | destination | applyTo | evidence |', '|---|---|---|---|---|');
  for (const s of f.sections.slice(0, 80)) {
    lines.push(`| ${s.title.replace(/\|/g, '\\|').slice(0, 60)} | ${s.startLine}-${s.endLine} | ${s.destination} | ${s.applyTo ? `"${s.applyTo}"` : '(repo-wide)'} | ${s.evidence.slice(0, 3).join('; ').replace(/\|/g, '\\|') || '—'} |`);
  }
  if (f.sections.length > 80) lines.push(`| … ${f.sections.length - 80} more | | | | |`);
  lines.push('', 'Operations:');
  for (const o of f.operations) lines.push(`  ${o.op.padEnd(6)} ${o.path} (${o.size.toLocaleString('en-US')} bytes)`);
  if (!f.operations.length) lines.push('  none');
  lines.push(f.lossless.ok ? 'Lossless check passed: every source byte lands in exactly one output, in order.' : 'Lossless check FAILED.');
  const leftover = f.riskReasons.find((r) => r.includes('that code review reads'));
  if (leftover) lines.push(`Leftover: ${leftover}.`);
  // An empty plan has nothing to approve: the next step is a person's decision, not approval.
  const then = f.nothingToMigrate && next.startsWith('onboarding_approve') ? 'nothing to approve; ask the human with question_ask which suggested scopes to use, then call onboarding_propose again with overrides.' : next;
  lines.push(`Nothing was changed. Next: ${then}`);
  return lines.join('\n');
}

/** The whole structuredContent of onboarding_propose. */
export function proposeResult(facts: PlanFacts, narration: Narration, recovery: Recovery | null) {
  return { ...facts, narration, recovery };
}
