/**
 * The results of analyze and propose, built once for every channel: the MCP tools return them
 * as `structuredContent` and the CLI prints them with `--json`, so both say exactly the same
 * thing. The text renderings are the deterministic fallback shown when no model narrates.
 * No SDK imports.
 *
 * Results are bounded whatever the source: a client that receives a result of many megabytes
 * stalls or drops the session. Lists are cut at a fixed number of items and long strings at a
 * fixed length; `truncated` then gives every list's full count and where the whole plan is (the
 * plan resource and the plan file), which is the complete record.
 */
import type { Analysis, RefusedSource, Snapshot } from '../core/types.js';
import type { Plan } from '../schemas/plan.js';
import type { Recovery } from './recover.js';

/** The most items of one list in a result, and the longest string kept in full. */
const MAX_ITEMS = 100;
const MAX_TEXT_ITEMS = 40;
const MAX_STRING = 300;
const MAX_EVIDENCE = 3;
const PLAN_RESOURCE = 'copilot-onboarding://plan/current';

/** A string cut to `max` characters, ending with its full size, so a cut is never silent. */
function clip(value: string, max = MAX_STRING): string {
  if (value.length <= max) return value;
  return `${value.slice(0, /[\ud800-\udbff]/.test(value[max - 1] ?? '') ? max - 1 : max)}… (${Buffer.byteLength(value, 'utf8').toLocaleString('en-US')} bytes)`;
}
const clipOrNull = (v: string | null, max = MAX_STRING) => (v === null ? null : clip(v, max));

/** Lists cut to MAX_ITEMS, with the full count of each list that was cut. */
class Bounded {
  readonly counts: Record<string, number> = {};
  list<T, U>(name: string, items: readonly T[], map: (t: T) => U): U[] {
    if (items.length > MAX_ITEMS) this.counts[name] = items.length;
    return items.slice(0, MAX_ITEMS).map(map);
  }
  truncated(where: string): { truncated?: { counts: Record<string, number>; note: string } } {
    if (!Object.keys(this.counts).length) return {};
    return { truncated: { counts: this.counts, note: `Lists are cut at ${MAX_ITEMS} items; the full count of each cut list is in counts. ${where}` } };
  }
}

function problem(p: { code: string; severity: 'info' | 'warning' | 'error'; message: string; path: string; lines: number[] }) {
  return { code: p.code, severity: p.severity, message: clip(p.message), path: clip(p.path), lines: p.lines.slice(0, 20) };
}

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
  const b = new Bounded();
  return {
    workspace,
    pattern: a.pattern,
    sources: b.list('sources', a.sources, (s) => ({ ...s, path: clip(s.path) })),
    refused: b.list('refused', snapshot.refused, (r: RefusedSource) => ({ path: clip(r.path), kind: r.kind, reason: clip(r.reason) })),
    sections: b.list('sections', a.sections, (s) => ({
      id: s.id,
      title: clip(s.title),
      kind: s.kind,
      level: s.level,
      proposed: s.proposed,
      startLine: s.startLine,
      endLine: s.endLine,
      bytes: s.ranges.reduce((n, r) => n + (r.end - r.start), 0),
    })),
    problems: b.list('problems', a.problems, problem),
    existingInstructions: b.list('existingInstructions', a.existingInstructions, (e) => ({
      path: clip(e.path),
      applyTo: clipOrNull(e.applyTo),
      applyToShape: e.applyToShape,
      description: clipOrNull(e.description),
    })),
    otherAgentFiles: b.list('otherAgentFiles', a.otherAgentFiles, (f) => clip(f)),
    ...b.truncated('Run onboarding_propose for the plan, which is stored whole.'),
  };
}
export type AnalysisFacts = ReturnType<typeof analysisFacts>;

/** `next` is the step to suggest, named for the channel (a tool name or a command). */
export function analysisText(f: AnalysisFacts, next = 'onboarding_propose builds a plan (it changes no instruction file).'): string {
  const lines = [`Pattern: ${f.pattern}.`];
  for (const s of f.sources) lines.push(`Source ${s.path} (${s.kind}): ${s.chars.toLocaleString('en-US')} characters, ${s.lines} lines.`);
  for (const r of f.refused) lines.push(`Refused ${r.path}: ${r.reason}.`);
  if (f.sections.length) {
    lines.push(`${f.truncated?.counts.sections ?? f.sections.length} section(s):`);
    for (const s of f.sections.slice(0, MAX_TEXT_ITEMS)) lines.push(`  ${s.id}  "${s.title}"  lines ${s.startLine}-${s.endLine}${s.proposed ? '  (proposed topic group)' : ''}`);
    const total = f.truncated?.counts.sections ?? f.sections.length;
    if (total > MAX_TEXT_ITEMS) lines.push(`  … and ${total - MAX_TEXT_ITEMS} more`);
  }
  const problems = f.truncated?.counts.problems ?? f.problems.length;
  lines.push(problems ? `${problems} problem(s):` : 'No problems found.');
  for (const p of f.problems.slice(0, 30)) lines.push(`  ${p.severity} ${p.code}: ${p.message}${p.lines.length ? ` (line ${p.lines.slice(0, 6).join(', ')})` : ''}`);
  if (f.otherAgentFiles.length) lines.push(`Other agents' files found (reported only): ${f.otherAgentFiles.slice(0, MAX_TEXT_ITEMS).join(', ')}${f.otherAgentFiles.length > MAX_TEXT_ITEMS ? ', …' : ''}.`);
  lines.push(`Next: ${next}`);
  return lines.join('\n');
}

/** The whole structuredContent of onboarding_analyze. */
export function analyzeResult(facts: AnalysisFacts, narration: Narration, recovery: Recovery | null) {
  return { ...facts, narration, recovery };
}

export function planFacts(plan: Plan, planFile: string) {
  const b = new Bounded();
  return {
    planId: plan.planId,
    sha256: plan.sha256,
    planFile,
    pattern: plan.pattern,
    risk: plan.risk,
    riskReasons: b.list('riskReasons', plan.riskReasons, (r) => clip(r)),
    nothingToMigrate: plan.operations.length === 0,
    operations: b.list('operations', plan.operations, (o) => ({ op: o.op, path: clip(o.path), size: o.size, sha256: o.sha256 })),
    sections: b.list('sections', plan.sections, (s) => ({
      id: s.id,
      title: clip(s.title),
      startLine: s.startLine,
      endLine: s.endLine,
      destination: clip(s.destination),
      applyTo: clipOrNull(s.applyTo),
      evidence: s.evidence.slice(0, MAX_EVIDENCE).map((e) => clip(e, 160)),
      decidedBy: s.decidedBy,
      proposed: s.proposed,
    })),
    problems: b.list('problems', plan.problems, problem),
    lossless: { ok: plan.lossless.ok, coveredSources: b.list('coveredSources', plan.lossless.coveredSources, (c) => clip(c)) },
    ...b.truncated(`The whole plan: resource ${PLAN_RESOURCE} and ${planFile}.`),
  };
}
export type PlanFacts = ReturnType<typeof planFacts>;

export function planText(f: PlanFacts, next = 'onboarding_approve asks the human to approve this exact plan.'): string {
  const lines = [`Plan ${f.planId} (sha256 ${f.sha256.slice(0, 12)}…), stored in ${f.planFile}. Pattern: ${f.pattern}. Risk: ${f.risk}.`];
  if (f.nothingToMigrate) lines.push('Nothing to migrate: no section has a confident path scope, or the repository is already migrated.');
  lines.push('', '| section | lines | destination | applyTo | evidence |', '|---|---|---|---|---|');
  for (const s of f.sections.slice(0, MAX_TEXT_ITEMS)) {
    lines.push(`| ${s.title.replace(/\|/g, '\\|').slice(0, 60)} | ${s.startLine}-${s.endLine} | ${s.destination} | ${s.applyTo ? `"${s.applyTo}"` : '(repo-wide)'} | ${s.evidence.slice(0, 3).join('; ').replace(/\|/g, '\\|') || '—'} |`);
  }
  const sections = f.truncated?.counts.sections ?? f.sections.length;
  if (sections > MAX_TEXT_ITEMS) lines.push(`| … ${sections - MAX_TEXT_ITEMS} more | | | | |`);
  lines.push('', 'Operations:');
  for (const o of f.operations.slice(0, MAX_TEXT_ITEMS)) lines.push(`  ${o.op.padEnd(6)} ${o.path} (${o.size.toLocaleString('en-US')} bytes)`);
  const ops = f.truncated?.counts.operations ?? f.operations.length;
  if (ops > MAX_TEXT_ITEMS) lines.push(`  … and ${ops - MAX_TEXT_ITEMS} more: resource ${PLAN_RESOURCE} and ${f.planFile} have them all.`);
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
