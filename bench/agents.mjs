/**
 * Issue 21's figures on real repositories (kept outside this repository, in the folder
 * COPILOT_ONBOARDING_AGENT_CASES names; bench/agent-cases.tsv lists them): per repository,
 * the instruction sources by format, the rules found in more than one source (exact, near, and
 * how many a Copilot surface loads twice), the bytes the cloud agent loads twice today, and what
 * the plan does with other agents' files (converted, kept) and whether it is lossless.
 * Not timed. Run: npm run build:modules && COPILOT_ONBOARDING_DIST=bench/.out/modules node bench/agents.mjs
 * (prints a Markdown table for docs/benchmarks.md), then, for the repositories where a shared-rules
 * choice can act, what each choice does: the byte-for-byte copies replaced by an import (count and
 * bytes) and whether the plan stays lossless.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_DIR, load } from './lib.mjs';

const DIR = process.env.COPILOT_ONBOARDING_AGENT_CASES ? path.resolve(process.env.COPILOT_ONBOARDING_AGENT_CASES) : '';
if (!DIR || !existsSync(DIR)) {
  console.error(`No agent cases in ${DIR}: set COPILOT_ONBOARDING_AGENT_CASES (bench/agent-cases.tsv lists the repositories and commits).`);
  process.exit(2);
}
const { readSnapshot } = await load('io/snapshot.js');
const { analyze } = await load('core/analyze.js');
const { buildOnboardingPlan } = await load('core/agents/plan.js');
const { formatOf } = await load('core/agents/formats.js');
const { sharedRulesAsk } = await load('core/agents/shared-rules.js');

/** The plan under a shared-rules choice: copies replaced by an import (count, bytes), lossless. */
function choose(snapshot, analysis, choice) {
  try {
    const p = buildOnboardingPlan({ snapshot, analysis, overrides: [{ sharedRules: choice }] });
    const copies = (p.agents?.pointers ?? []).flatMap((r) => r.copies);
    return { copies: copies.length, bytes: copies.reduce((n, c) => n + (c.end - c.start), 0), lossless: p.lossless.ok };
  } catch (e) {
    return { refused: e.message.split(':')[0] };
  }
}
const shown = (c) => (c.refused ? `refused: ${c.refused}` : `${c.copies} / ${c.bytes.toLocaleString('en-US')} (${c.lossless ? 'lossless' : 'NOT lossless'})`);
const choices = [];

const rows = [];
const totals = { sources: 0, exact: 0, near: 0, twice: 0, twiceBytes: 0, conversions: 0, kept: 0, lossless: 0 };
for (const name of readdirSync(DIR).sort()) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'co-bench-agents-'));
  try {
    cpSync(path.join(DIR, name, 'repo'), root, { recursive: true, verbatimSymlinks: true });
    const snap = await readSnapshot(root);
    const listed = readFileSync(path.join(DIR, name, 'files.txt'), 'utf8').split('\n').filter(Boolean);
    const snapshot = { ...snap, files: [...new Set([...snap.files, ...listed])].sort() };
    const analysis = analyze(snapshot);
    let plan;
    try {
      plan = buildOnboardingPlan({ snapshot, analysis, overrides: [] });
    } catch (e) {
      plan = { refused: e.message, operations: [], lossless: { ok: true } };
    }
    const dups = analysis.agents.duplicates;
    const twice = dups.filter((d) => d.loadedTwiceBy.includes('cloud-agent'));
    // Bytes the cloud agent reads more than once: every copy after the first of a rule it loads twice.
    const twiceBytes = twice.reduce((n, d) => n + d.occurrences.slice(1).reduce((m, o) => m + (o.end - o.start), 0), 0);
    const byFormat = new Map();
    for (const s of snapshot.sources) byFormat.set(formatOf(s.path), (byFormat.get(formatOf(s.path)) ?? 0) + 1);
    const row = {
      repo: readFileSync(path.join(DIR, name, 'SOURCE.txt'), 'utf8').match(/github\.com\/(\S+) at commit ([0-9a-f]{8})/).slice(1).join('@'),
      sources: [...byFormat].map(([f, n]) => (n > 1 ? `${f} ×${n}` : f)).join(', '),
      exact: dups.filter((d) => d.kind === 'exact').length,
      near: dups.filter((d) => d.kind === 'near').length,
      twice: twice.length,
      twiceBytes,
      conversions: plan.agents?.conversions.length ?? 0,
      kept: plan.agents?.kept.length ?? 0,
      ops: plan.refused ? `refused: ${plan.refused.split(':')[0]}` : plan.operations.length,
      lossless: plan.lossless.ok,
    };
    rows.push(row);
    const shared = sharedRulesAsk(analysis.agents, [], null);
    if (shared.actionable) choices.push({ repo: row.repo, all: shared.duplicates, actionable: shared.actionable, agents: choose(snapshot, analysis, 'AGENTS.md'), copilot: choose(snapshot, analysis, 'copilot') });
    totals.sources += snapshot.sources.length;
    for (const k of ['exact', 'near', 'twice', 'twiceBytes', 'conversions', 'kept']) totals[k] += row[k];
    if (row.lossless) totals.lossless++;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
console.log('| repository | sources | exact dup. | near dup. | loaded twice by the cloud agent (rules / bytes) | converted | kept | operations | lossless |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.repo} | ${r.sources} | ${r.exact} | ${r.near} | ${r.twice} / ${r.twiceBytes.toLocaleString('en-US')} | ${r.conversions} | ${r.kept} | ${r.ops} | ${r.lossless ? 'yes' : 'NO'} |`);
console.log(`| **${rows.length} repositories** | ${totals.sources} files | ${totals.exact} | ${totals.near} | ${totals.twice} / ${totals.twiceBytes.toLocaleString('en-US')} | ${totals.conversions} | ${totals.kept} | | ${totals.lossless}/${rows.length} |`);
console.log('');
if (!choices.length) console.log(`No repository has a rule a shared-rules choice can act on (a byte-for-byte candidate in a root CLAUDE.md or GEMINI.md that is also in AGENTS.md or Copilot's files).`);
else console.log('| repository | shared rules (a choice can act on) | "AGENTS.md": copies replaced / bytes | "Copilot": copies replaced / bytes |');
if (choices.length) console.log('|---|---|---|---|');
for (const c of choices) console.log(`| ${c.repo} | ${c.all} (${c.actionable}) | ${shown(c.agents)} | ${shown(c.copilot)} |`);
