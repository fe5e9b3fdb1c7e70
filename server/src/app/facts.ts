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
import { agentInventory, surfaceList } from '../core/agents/inventory.js';
import { agentOutlook } from '../core/agents/outlook.js';
import type { SharedRulesAsk } from '../core/agents/shared-rules.js';
import type { DuplicateRule } from '../core/agents/duplicates.js';
import type { Plan } from '../schemas/plan.js';
import { budgetWarnings, figureLine, SURFACE_NAMES, type LoadFigure } from '../core/loads.js';
import type { Recovery } from './recover.js';
import { sanitize, thousands } from '../core/sanitize.js';
import { SPLIT_NOTE } from '../core/subsections.js';

/** The most items of one list in a result, and the longest string kept in full. */
const MAX_ITEMS = 100;
const MAX_TEXT_ITEMS = 40;
const MAX_STRING = 300;
const MAX_EVIDENCE = 3;
const PLAN_RESOURCE = 'copilot-onboarding://plan/current';

/** A string cut to `max` characters, ending with its full size, so a cut is never silent. */
function clip(value: string, max = MAX_STRING): string {
  if (value.length <= max) return value;
  return `${value.slice(0, /[\ud800-\udbff]/.test(value[max - 1] ?? '') ? max - 1 : max)}… (${thousands(Buffer.byteLength(value, 'utf8'))} bytes)`;
}
const clipOrNull = (v: string | null, max = MAX_STRING) => (v === null ? null : clip(v, max));
/** An untrusted string (already clipped) for the text renderings: one line, no control, escape or bidi character. */
const t = (v: string) => sanitize(v, Number.MAX_SAFE_INTEGER);

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
    ...agentFacts(b, a.agents ?? agentInventory(snapshot)),
    ...b.truncated('Run onboarding_propose for the plan, which is stored whole.'),
  };
}

/** The inventory of every agent's sources and the rules found in more than one of them. */
function agentFacts(b: Bounded, inv: NonNullable<Analysis['agents']>) {
  return {
    inventory: b.list('inventory', inv.sources, (e) => ({
      path: clip(e.path),
      format: e.format,
      agent: e.agent,
      size: e.size,
      lines: e.lines,
      readBy: e.readBy.map((r) => ({ surface: r.surface, when: r.when ?? null, byDefault: !r.off })),
      rule: e.rule ? { activation: e.rule.activation, description: clipOrNull(e.rule.description), globs: e.rule.globs.slice(0, 20).map((g) => clip(g, 200)), problems: e.rule.problems.slice(0, 10).map((p) => clip(p)) } : null,
    })),
    agentPlan: b.list('agentPlan', agentOutlook(inv), (o) => ({
      path: clip(o.path),
      action: o.convert ? (o.convert.repoWide ? ('append' as const) : ('convert' as const)) : o.split ? ('split' as const) : ('keep' as const),
      applyTo: o.convert ? clipOrNull(o.convert.applyTo) : null,
      reason: clip(o.convert ? o.convert.why : o.split ? o.split.why : o.keep!, 600),
    })),
    duplicates: b.list('duplicates', inv.duplicates, (d) => ({
      kind: d.kind,
      similarity: d.similarity,
      excerpt: clip(d.excerpt, 160),
      occurrences: d.occurrences.slice(0, 20).map((o) => ({ path: clip(o.path), startLine: o.startLine, endLine: o.endLine })),
      loadedTwiceBy: d.loadedTwiceBy,
    })),
  };
}

function agentLines(f: AnalysisFacts): string[] {
  const lines: string[] = [];
  if (f.inventory.length) {
    lines.push(`${f.truncated?.counts.inventory ?? f.inventory.length} instruction source(s), by agent:`);
    for (const e of f.inventory.slice(0, MAX_TEXT_ITEMS)) {
      const rule = e.rule ? `; ${e.rule.activation}${e.rule.globs.length ? ` ${t(e.rule.globs.join(', '))}` : ''}` : '';
      const reads = e.readBy.map((r) => ({ surface: r.surface, ...(r.when ? { when: r.when } : {}) }));
      lines.push(`  ${t(e.path)}  ${e.format} (${e.agent}), ${thousands(e.size)} bytes, ${e.lines} lines${rule}; read by ${surfaceList(reads)}`);
      for (const p of e.rule?.problems ?? []) lines.push(`    note: ${t(p)}`);
    }
  }
  if (f.agentPlan.length) {
    lines.push("What propose does with other agents' files (each stays as it is unless it is split, and then its agent imports what moved):");
    for (const o of f.agentPlan.slice(0, MAX_TEXT_ITEMS)) {
      lines.push(
        o.action === 'convert'
          ? `  convert ${t(o.path)} into a Copilot file${o.applyTo ? ` with applyTo "${t(o.applyTo)}"` : ' picked by its description'}: ${t(o.reason)}`
          : o.action === 'append'
            ? `  append ${t(o.path)} to .github/copilot-instructions.md: ${t(o.reason)}`
            : o.action === 'split'
              ? `  split ${t(o.path)}: ${t(o.reason)}`
              : `  keep ${t(o.path)}: ${t(o.reason)}`,
      );
    }
    const copilot = f.inventory.some((e) => e.format === 'copilot-repo' || e.format === 'copilot-path');
    if (!copilot && !f.agentPlan.some((o) => o.action !== 'keep')) lines.push('Nothing needs to move: there is no Copilot instruction file to split, and each file above is kept for the reason given.');
  }
  if (f.duplicates.length) {
    const total = f.truncated?.counts.duplicates ?? f.duplicates.length;
    const twice = f.duplicates.filter((d) => d.loadedTwiceBy.length).length;
    lines.push(`${total} rule(s) appear in more than one source${twice ? ` (${twice} of those shown are loaded twice by some Copilot surface)` : ''}:`);
    for (const d of f.duplicates.slice(0, MAX_TEXT_ITEMS)) {
      const where = d.occurrences.map((o) => `${t(o.path)} lines ${o.startLine}-${o.endLine}`).join(' and ');
      lines.push(`  ${d.kind === 'exact' ? 'exact' : `near (${Math.round(d.similarity * 100)}%)`}: "${t(d.excerpt)}" in ${where}${d.loadedTwiceBy.length ? `; loaded twice by ${d.loadedTwiceBy.join(', ')}` : ''}`);
    }
    if (total > MAX_TEXT_ITEMS) lines.push(`  … and ${total - MAX_TEXT_ITEMS} more`);
    if (f.duplicates.some((d) => d.kind === 'near')) lines.push('  Near duplicates are for a person to reconcile: propose never rewrites them (only byte-for-byte copies are replaced by an import, and only by the person\'s shared-rules choice).');
  }
  return lines;
}
export type AnalysisFacts = ReturnType<typeof analysisFacts>;

/** `next` is the step to suggest, named for the channel (a tool name or a command). */
export function analysisText(f: AnalysisFacts, next = 'onboarding_propose builds a plan (it changes no instruction file).'): string {
  const lines = [`Pattern: ${f.pattern}.`];
  for (const s of f.sources) lines.push(`Source ${t(s.path)} (${s.kind}): ${thousands(s.chars)} characters, ${s.lines} lines.`);
  for (const r of f.refused) lines.push(`Refused ${t(r.path)}: ${t(r.reason)}.`);
  if (f.sections.length) {
    lines.push(`${f.truncated?.counts.sections ?? f.sections.length} section(s):`);
    for (const s of f.sections.slice(0, MAX_TEXT_ITEMS)) lines.push(`  ${s.id}  "${t(s.title)}"  lines ${s.startLine}-${s.endLine}${s.proposed ? '  (proposed topic group)' : ''}`);
    const total = f.truncated?.counts.sections ?? f.sections.length;
    if (total > MAX_TEXT_ITEMS) lines.push(`  … and ${total - MAX_TEXT_ITEMS} more`);
  }
  const problems = f.truncated?.counts.problems ?? f.problems.length;
  lines.push(problems ? `${problems} problem(s):` : 'No problems found.');
  for (const p of f.problems.slice(0, 30)) lines.push(`  ${p.severity} ${p.code}: ${t(p.message)}${p.lines.length ? ` (line ${p.lines.slice(0, 6).join(', ')})` : ''}`);
  lines.push(...agentLines(f));
  // analyze and propose agree: with every instruction file refused, propose has nothing to read.
  lines.push(`Next: ${!f.sources.length && f.refused.length ? 'nothing can be planned while every instruction file found is refused (above): fix or remove them, then analyze again.' : next}`);
  return lines.join('\n');
}

/** The whole structuredContent of onboarding_analyze. */
export function analyzeResult(facts: AnalysisFacts, narration: Narration, recovery: Recovery | null) {
  return { ...facts, narration, recovery };
}

/** The per-file figure for a result: the one line, the always-on size, per surface overall and per top-level folder, and the budget's warnings. */
function loadsFacts(f: LoadFigure, b: Bounded, budget: number | undefined) {
  return {
    line: figureLine(f),
    files: f.files,
    headline: f.headline,
    alwaysOn: f.alwaysOn,
    surfaces: f.surfaces.map((s) => ({
      surface: s.surface,
      name: SURFACE_NAMES[s.surface],
      before: s.before,
      after: s.after,
      folders: b.list(`loads.${s.surface}.folders`, s.folders, (g) => ({ ...g, folder: clip(g.folder) })),
      duplicated: s.duplicated ?? null,
    })),
    budget: { chars: budget ?? null, warnings: budgetWarnings(f, budget) },
  };
}

/** Large sections written to a path-specific file with other scopes their heading or language supports (plan.alternatives). */
function alternativesFacts(plan: Plan) {
  return (plan.alternatives ?? []).slice(0, 20).map((x) => ({ section: x.section, title: clip(x.title), chars: x.chars, applyTo: clip(x.applyTo), candidates: x.candidates.slice(0, 3).map((c) => clip(c.applyTo)) }));
}

function leftoverFacts(plan: Plan) {
  const l = plan.leftover;
  if (!l) return null;
  return {
    chars: l.chars,
    suggestions: l.suggestions.slice(0, 20).map((x) => ({ section: x.section, title: clip(x.title), chars: x.chars, candidates: x.candidates.slice(0, 3).map((c) => clip(c.applyTo)) })),
  };
}

/** Most near duplicates listed in a propose result (analyze lists up to MAX_ITEMS). */
const MAX_NEAR = 20;

/** Near duplicates: listed for a person, never rewritten (only byte-for-byte copies are replaced by an import). */
function nearFacts(duplicates: readonly DuplicateRule[]) {
  const near = duplicates.filter((d) => d.kind === 'near');
  return {
    total: near.length,
    listed: near.slice(0, MAX_NEAR).map((d) => ({
      similarity: d.similarity,
      excerpt: clip(d.excerpt, 160),
      occurrences: d.occurrences.slice(0, 2).map((o) => ({ path: clip(o.path), startLine: o.startLine, endLine: o.endLine })),
    })),
  };
}

/** The shared-rules choice: the question to ask (exact text, answers, how the answer becomes the override), or the choice in force and what it did. */
function sharedRulesFacts(s: SharedRulesAsk | undefined, plan: Plan) {
  if (!s || (!s.ask && s.choice === null && !plan.agents?.sharedRules && !s.duplicates && !s.ignored.count)) return null;
  return {
    ask: s.ask,
    choice: s.choice,
    from: clipOrNull(s.from),
    ignored: { count: s.ignored.count, listed: s.ignored.listed.map((i) => ({ file: clip(i.file, 300), why: clip(i.why, 600) })) },
    duplicates: s.duplicates,
    actionable: s.actionable,
    question: s.question,
    answers: s.answers,
    how: s.how,
    notes: (plan.agents?.sharedRules?.notes ?? []).slice(0, 20).map((n) => clip(n, 600)),
  };
}

/**
 * `figure` is what loads where (app/loads figureFor); `budget` the characters per file that may
 * warn (none by default); `extra`: the shared-rules choice (app/propose) and the duplicates found
 * by the inventory, whose near ones are listed.
 */
export function planFacts(plan: Plan, planFile: string, figure: LoadFigure | null = null, budget?: number, extra: { sharedRules?: SharedRulesAsk; duplicates?: readonly DuplicateRule[] } = {}) {
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
    loads: figure ? loadsFacts(figure, b, budget) : null,
    leftover: leftoverFacts(plan),
    alternatives: alternativesFacts(plan),
    agents: plan.agents
      ? {
          conversions: b.list('conversions', plan.agents.conversions, (c) => ({ source: clip(c.source), output: clip(c.output), applyTo: clipOrNull(c.applyTo), why: clip(c.why, 600) })),
          kept: b.list('kept', plan.agents.kept, (k) => ({ path: clip(k.path), reason: clip(k.reason, 600) })),
          splits: (plan.agents.splits ?? []).map((s) => ({ source: clip(s.source), mode: s.mode, outputs: s.outputs.slice(0, 50).map((o) => ({ path: clip(o.path), applyTo: clipOrNull(o.applyTo) })), pointers: s.pointers.slice(0, 50).map((x) => clip(x)) })),
          pointers: (plan.agents.pointers ?? []).map((p) => ({ file: clip(p.file), pointer: clip(p.pointer), copies: p.copies.length })),
          duplicates: plan.agents.duplicates,
          nearDuplicates: nearFacts(extra.duplicates ?? []),
          nothingToMove: clipOrNull(plan.agents.nothingToMove, 2000),
        }
      : null,
    sharedRules: sharedRulesFacts(extra.sharedRules, plan),
    ...b.truncated(`The whole plan: resource ${PLAN_RESOURCE} and ${planFile}.`),
  };
}
export type PlanFacts = ReturnType<typeof planFacts>;

export function planText(f: PlanFacts, next = 'onboarding_approve asks the human to approve this exact plan.'): string {
  const lines = [`Plan ${f.planId} (sha256 ${f.sha256.slice(0, 12)}…), stored in ${f.planFile}. Pattern: ${f.pattern}. Risk: ${f.risk}.`];
  if (f.agents?.nothingToMove) lines.push(`Nothing needs to move: ${t(f.agents.nothingToMove)}.`);
  else if (f.nothingToMigrate) lines.push('Nothing to migrate: no section has a confident path scope, or the repository is already migrated.');
  lines.push('', '| section | lines | destination | applyTo | evidence |', '|---|---|---|---|---|');
  // The parts of a split chapter share its note ("split from …"): it is said on the chapter's first
  // row only, so the other rows' three evidence slots hold their own evidence.
  let chapter: string | null = null;
  for (const s of f.sections.slice(0, MAX_TEXT_ITEMS)) {
    const note = s.evidence[0]?.startsWith(SPLIT_NOTE) ? s.evidence[0] : null;
    const evidence = note !== null && note === chapter ? s.evidence.slice(1) : s.evidence;
    chapter = note;
    lines.push(`| ${t(s.title.slice(0, 60)).replace(/\|/g, '\\|')} | ${s.startLine}-${s.endLine} | ${t(s.destination)} | ${s.applyTo ? `"${t(s.applyTo)}"` : '(repo-wide)'} | ${t(evidence.slice(0, 3).join('; ')).replace(/\|/g, '\\|') || '—'} |`);
  }
  const sections = f.truncated?.counts.sections ?? f.sections.length;
  if (sections > MAX_TEXT_ITEMS) lines.push(`| … ${sections - MAX_TEXT_ITEMS} more | | | | |`);
  if (f.agents?.conversions.length) {
    lines.push('', "Other agents' rules copied into Copilot files (each original stays as it is):");
    for (const c of f.agents.conversions.slice(0, MAX_TEXT_ITEMS)) lines.push(`  ${t(c.source)} -> ${t(c.output)}${c.applyTo ? ` (applyTo "${t(c.applyTo)}")` : ' (by description)'}: ${t(c.why)}`);
  }
  for (const sp of f.agents?.splits ?? []) {
    lines.push(
      '',
      sp.mode === 'move'
        ? `${t(sp.source)} is split like Copilot's own file: its path-specific sections move into scoped files, and it imports each one (${sp.pointers.map((x) => t(x)).join(', ')}) so its agent still reads them:`
        : `${t(sp.source)} is read by no Copilot surface: its path-specific sections are copied into scoped files, and it stays as it is:`,
    );
    for (const o of sp.outputs) lines.push(`  -> ${t(o.path)}${o.applyTo ? ` (applyTo "${t(o.applyTo)}")` : ''}`);
  }
  if (f.agents?.kept.length && !f.agents.nothingToMove) {
    lines.push('', "Other agents' files kept as they are:");
    for (const k of f.agents.kept.slice(0, MAX_TEXT_ITEMS)) lines.push(`  ${t(k.path)}: ${t(k.reason)}`);
  }
  if (f.agents && f.agents.duplicates.exact + f.agents.duplicates.near) {
    lines.push(`Rules in more than one source: ${f.agents.duplicates.exact} exact, ${f.agents.duplicates.near} near; ${f.agents.duplicates.loadedTwice} loaded twice by some Copilot surface (onboarding_analyze lists them).`);
  }
  lines.push(...nearText(f), ...sharedRulesText(f));
  lines.push('', 'Operations:');
  for (const o of f.operations.slice(0, MAX_TEXT_ITEMS)) lines.push(`  ${o.op.padEnd(6)} ${t(o.path)} (${thousands(o.size)} bytes)`);
  const ops = f.truncated?.counts.operations ?? f.operations.length;
  if (ops > MAX_TEXT_ITEMS) lines.push(`  … and ${ops - MAX_TEXT_ITEMS} more: resource ${PLAN_RESOURCE} and ${f.planFile} have them all.`);
  if (!f.operations.length) lines.push('  none');
  const copies = [
    f.agents?.conversions.length ? "; each converted rule is a verbatim copy of its source's rule text, and the source stays as it is" : '',
    ...(f.agents?.pointers ?? []).map((p) => `; the ${p.copies} rule(s) taken out of ${t(p.file)} are byte-for-byte in the file it now imports (${t(p.pointer)})`),
  ].join('');
  lines.push(f.lossless.ok ? `Lossless check passed: every source byte lands in exactly one output, in order${copies}.` : 'Lossless check FAILED.');
  lines.push(...loadsText(f));
  // An empty plan has nothing to approve: the next step is a person's decision, not approval.
  const then = f.sharedRules?.ask
    ? `first ask the shared-rules question above, word for word (question_ask), then propose again; or ${next}`
    : f.nothingToMigrate && next.startsWith('onboarding_approve')
      ? 'nothing to approve; ask the human with question_ask which suggested scopes to use, then call onboarding_propose again with overrides.'
      : next;
  lines.push(`Nothing was changed. Next: ${then}`);
  return lines.join('\n');
}

/** Near duplicates, bounded: where each pair is, never changed by the plan. */
function nearText(f: PlanFacts): string[] {
  const nd = f.agents?.nearDuplicates;
  if (!nd?.total) return [];
  const lines = [`Near duplicates (similar, not identical; the plan changes none of them, a person decides which wording to keep):`];
  for (const d of nd.listed.slice(0, 10)) lines.push(`  ${Math.round(d.similarity * 100)}% alike: "${t(d.excerpt)}" in ${d.occurrences.map((o) => `${t(o.path)} lines ${o.startLine}-${o.endLine}`).join(' and ')}`);
  if (nd.total > 10) lines.push(`  … and ${nd.total - 10} more (onboarding_analyze lists them)`);
  return lines;
}

/** The shared-rules question to ask, or the choice in force and what it did. */
function sharedRulesText(f: PlanFacts): string[] {
  const s = f.sharedRules;
  if (!s) return [];
  return [...ignoredText(s.ignored), ...choiceText(s)];
}

/** Saved answers not used, and why: a person must not read a planted file as their choice. */
function ignoredText(ignored: NonNullable<PlanFacts['sharedRules']>['ignored']): string[] {
  if (!ignored.count) return [];
  const more = ignored.count > ignored.listed.length ? ` and ${ignored.count - ignored.listed.length} more` : '';
  return [
    '',
    `Ignored ${ignored.count} saved answer(s) to the shared-rules question: no question_ask trace of this workspace that authenticates with this user's key records them, so nobody is known to have given them (${ignored.listed.map((i) => `${t(i.file)}: ${t(i.why)}`).join('; ')}${more}).`,
  ];
}

function choiceText(s: NonNullable<PlanFacts['sharedRules']>): string[] {
  if (s.ask) {
    return [
      '',
      `${s.duplicates} rule(s) are written both in Copilot's files and in AGENTS.md, CLAUDE.md or GEMINI.md (${s.actionable} with a copy in CLAUDE.md or GEMINI.md, which can import the other file). One source of truth is the person's choice. ${t(s.how)}`,
      `Question (word for word): ${t(s.question)}`,
      `Answers: ${s.answers.map((a) => `"${t(a.answer)}" → override ${JSON.stringify(a.override)}: ${t(a.means)}`).join('; ')}.`,
    ];
  }
  const notes = s.notes.map((x) => `  ${t(x)}`);
  if (s.choice === null && !notes.length) {
    return ['', `${s.duplicates} rule(s) are written both in Copilot's files and in AGENTS.md; neither has a documented import form, so both keep them (the figure above counts what that costs), and there is nothing to choose.`];
  }
  if (s.choice === null) return ['', 'Shared rules: pointer overrides, per file:', ...notes];
  const from = s.from === 'override' ? 'an override' : `the answer saved in ${t(s.from ?? '')}`;
  return ['', `Shared rules: ${s.choice === 'keep' ? 'every copy stays as it is' : `${s.choice === 'copilot' ? "Copilot's repository-wide file" : 'AGENTS.md'} holds them`} (chosen by ${from}).`, ...notes];
}

const n = thousands;
const statText = (s: { mean: number; median: number; p90: number; max: number }) => `mean ${n(s.mean)}, median ${n(s.median)}, p90 ${n(s.p90)}, max ${n(s.max)}`;

/** The figure and the leftover report: always-on size, per-file figure per surface, top folders, largest kept sections. */
function loadsText(f: PlanFacts): string[] {
  const lines: string[] = [];
  const l = f.loads;
  if (l) {
    lines.push('', `What loads where: ${t(l.line)}`, `Characters attached per file (${n(l.files)} files of the tree), before → after the plan:`);
    // A figure the plan leaves as it is is said once ("…, unchanged"), not as "X → X".
    for (const s of l.surfaces) lines.push(`  ${s.name}: ${statText(s.before) === statText(s.after) ? `${statText(s.after)}, unchanged` : `${statText(s.before)} → ${statText(s.after)}`}`);
    const head = l.surfaces.find((s) => s.surface === l.headline)!;
    const top = [...head.folders].sort((a, b) => b.after.max - a.after.max || b.before.max - a.before.max).slice(0, 10);
    if (top.length > 1) {
      lines.push(`  Per top-level folder (${head.name}, the ${top.length} with the largest files):`);
      for (const g of top) {
        // Compared as shown, like the surfaces' lines: what reads the same is unchanged.
        const change = n(g.before.mean) === n(g.after.mean) && n(g.before.max) === n(g.after.max) ? `mean ${n(g.after.mean)}, max ${n(g.after.max)}, unchanged` : `mean ${n(g.before.mean)} → ${n(g.after.mean)}, max ${n(g.before.max)} → ${n(g.after.max)}`;
        lines.push(`    ${g.folder === '.' ? '(root files)' : `${t(g.folder)}/`}: ${change} (${g.after.files === 1 ? '1 file' : `${n(g.after.files)} files`})`);
      }
    }
    for (const w of l.budget.warnings) lines.push(`Warning ${w.code}: ${t(w.message)}`);
  }
  if (f.leftover) {
    const now = l ? ` (now ${n(l.alwaysOn.before)})` : '';
    lines.push(`Leftover: .github/copilot-instructions.md keeps ${n(f.leftover.chars)} characters after the plan${now}, attached to every request on every surface.`);
    if (f.leftover.suggestions.length) {
      lines.push('Largest sections kept there, with candidate scopes (ask the human; apply the answers with overrides):');
      for (const x of f.leftover.suggestions.slice(0, 5)) lines.push(`  ${t(x.section)} "${t(x.title)}" (${n(x.chars)} characters): ${x.candidates.length ? x.candidates.map((c) => `"${t(c)}"`).join(' or ') : 'no candidate scope'}`);
    }
  }
  if (f.alternatives.length) {
    lines.push('Largest sections written to path-specific files whose heading or language gives another scope (ask the human; apply the answers with overrides):');
    for (const x of f.alternatives.slice(0, 5)) lines.push(`  ${t(x.section)} "${t(x.title)}" (${n(x.chars)} characters): written to "${t(x.applyTo)}"; other scopes: ${x.candidates.map((c) => `"${t(c)}"`).join(' or ')}`);
  }
  return lines;
}

/** The whole structuredContent of onboarding_propose. */
export function proposeResult(facts: PlanFacts, narration: Narration, recovery: Recovery | null) {
  return { ...facts, narration, recovery };
}
