/**
 * Issue 21's evidence: real repositories with two or more agents' instruction files. They hold
 * other repositories' text, so they live outside this repository: in the folder named by
 * COPILOT_ONBOARDING_AGENT_CASES (.ci/run sets it when the steering repository's shared folder has them; one folder per
 * repository: repo/ with its instruction files, files.txt its tree, LICENSE, and SOURCE.txt naming
 * repository and commit; bench/agent-cases.tsv lists them). Skipped when absent (a fresh clone).
 * For each: the snapshot finds every source, the plan is lossless (checked again with every
 * hash), no operation touches another agent's file (so every agent still reads every rule it
 * read before), each converted rule is a verbatim copy of its source's rule text, and the plan
 * is made again identically. bench/agents.mjs prints the figures docs/benchmarks.md shows.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSnapshot } from '../../server/src/io/snapshot.js';
import { analyze } from '../../server/src/core/analyze.js';
import { buildOnboardingPlan } from '../../server/src/core/agents/plan.js';
import { verifyLossless } from '../../server/src/core/plan.js';
import { formatOf } from '../../server/src/core/agents/formats.js';

const DIR = process.env.COPILOT_ONBOARDING_AGENT_CASES ? path.resolve(process.env.COPILOT_ONBOARDING_AGENT_CASES) : '';
const fixtures = DIR && existsSync(DIR) ? readdirSync(DIR).filter((d) => !d.startsWith('.')).sort() : [];
const temps: string[] = [];
afterAll(() => temps.forEach((t) => rmSync(t, { recursive: true, force: true })));

async function load(name: string) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'co-agents-fx-'));
  temps.push(root);
  cpSync(path.join(DIR, name, 'repo'), root, { recursive: true, verbatimSymlinks: true });
  const snap = await readSnapshot(root);
  const listed = readFileSync(path.join(DIR, name, 'files.txt'), 'utf8').split('\n').filter(Boolean);
  const snapshot = { ...snap, files: [...new Set([...snap.files, ...listed])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) };
  return { root, snapshot };
}

describe.skipIf(fixtures.length === 0)('real repositories with several agents’ files (when COPILOT_ONBOARDING_AGENT_CASES names them)', () => {
  it('has at least ten, each with a licence and a source note', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(10);
    for (const f of fixtures) {
      expect(readFileSync(path.join(DIR, f, 'LICENSE'), 'utf8')).toMatch(/MIT|Apache|BSD|Permission is hereby granted|Redistribution and use/);
      expect(readFileSync(path.join(DIR, f, 'SOURCE.txt'), 'utf8')).toMatch(/^Vendored from https:\/\/github\.com\/\S+ at commit [0-9a-f]{40}/);
    }
  });

  for (const name of fixtures) {
    it(`${name}: lossless, no other agent loses a rule, converted rules are verbatim, re-derivable`, async () => {
      const { snapshot } = await load(name);
      const formats = new Set(snapshot.sources.map((s) => formatOf(s.path)));
      expect(snapshot.refused).toEqual([]);
      expect(formats.size).toBeGreaterThanOrEqual(2);
      const analysis = analyze(snapshot);
      // Another agent's file that is a symlink to a Copilot file the split changes would lose rules: refused, by name.
      const linked = snapshot.sources.filter((s) => s.kind === 'other-agent' && s.linkTo !== undefined && ['copilot-repo', 'copilot-path'].includes(formatOf(s.linkTo) ?? ''));
      let plan: ReturnType<typeof buildOnboardingPlan>;
      try {
        plan = buildOnboardingPlan({ snapshot, analysis, overrides: [] });
      } catch (e) {
        expect(linked.length).toBeGreaterThan(0);
        expect((e as Error).message).toMatch(new RegExp(`is a symlink to \\.github/.* which this plan would (modify|delete)`));
        return;
      }

      // No link of another agent's points at a Copilot file this plan changes.
      expect(linked.filter((l) => plan.operations.some((o) => o.op !== 'create' && o.path === l.linkTo))).toEqual([]);

      // Lossless, every hash checked again, over the plan's own contents.
      const sources = new Map(snapshot.sources.map((s) => [s.path, s.bytes]));
      const outputs = new Map(plan.operations.map((o) => [o.path, o.content === null ? null : Buffer.from(o.content, 'utf8')]));
      expect(verifyLossless(plan, sources, outputs)).toEqual({ ok: true, errors: [] });
      expect(plan.lossless.ok).toBe(true);

      // No other agent loses a rule: its files are recorded with their hash and never written.
      const others = snapshot.sources.filter((s) => s.kind === 'other-agent');
      for (const s of others) {
        expect(plan.sources).toContainEqual({ path: s.path, kind: 'other-agent', size: s.size, sha256: s.sha256 });
        expect(plan.operations.some((o) => o.path === s.path)).toBe(false);
      }
      for (const o of plan.operations) if (o.op !== 'create') expect(['copilot-repo', 'copilot-path']).toContain(formatOf(o.path));
      // Every existing Copilot file is either untouched or covered byte for byte by the proof.
      for (const o of plan.operations.filter((x) => x.op !== 'create')) expect(plan.lossless.coveredSources).toContain(o.path);

      // Each conversion carries its source's rule text verbatim.
      for (const c of plan.agents?.conversions ?? []) {
        const out = outputs.get(c.output)!;
        const body = Buffer.from(sources.get(c.source)!).subarray(c.bodyStart, c.bodyEnd);
        expect(out.subarray(out.length - body.length).equals(body)).toBe(true);
      }
      // Every other agent's file is either converted or kept with a reason.
      const decided = new Set([...(plan.agents?.conversions ?? []).map((c) => c.source), ...(plan.agents?.kept ?? []).map((k) => k.path)]);
      for (const s of others) expect(decided.has(s.path)).toBe(true);

      // Made again from the same files: the same plan.
      expect(buildOnboardingPlan({ snapshot, analysis: analyze(snapshot), overrides: [] }).sha256).toBe(plan.sha256);
    });
  }
});
