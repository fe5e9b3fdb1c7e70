/**
 * What loads where, as the human and the agent see it through the SDK client on the bundled
 * example: the one line in the approve and migrate forms' summary, the destination files with
 * their globs, sizes and section titles, and the figure in onboarding_propose's result and text.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { YES_APPROVE, YES_MIGRATE, harnessesPerTest, textOf } from '../helpers/harness.js';
import { exampleWorkspace } from '../helpers/workspace.js';
import { workspaceWith } from '../helpers/files.js';

const harnesses = harnessesPerTest();
const REPO = '.github/copilot-instructions.md';

interface Stats {
  files: number;
  mean: number;
  median: number;
  p90: number;
  max: number;
}

describe('what loads where, through the client', () => {
  it('propose returns the figure; approve and migrate show it in the summary and list each file with glob, size and sections', async () => {
    const root = exampleWorkspace();
    const monolith = await fsp.readFile(path.join(root, REPO), 'utf8');
    const h = await harnesses.open({ root, caps: { elicitation: {} }, elicit: [YES_APPROVE, YES_MIGRATE] });
    const p = await h.call('onboarding_propose', { narrate: false, budgetChars: 600 });
    expect(p.isError, textOf(p)).toBeFalsy();
    const sc = p.structuredContent as {
      planFile: string;
      loads: { line: string; files: number; alwaysOn: { before: number; after: number }; surfaces: Array<{ surface: string; before: Stats; after: Stats; folders: Array<{ folder: string; after: Stats }> }>; budget: { chars: number; warnings: Array<{ code: string }> } };
      leftover: { chars: number };
    };
    const plan = JSON.parse(await fsp.readFile(path.join(root, sc.planFile), 'utf8')) as { operations: Array<{ op: string; path: string; size: number; content: string }>; sections: Array<{ title: string; destination: string; applyTo: string | null }> };
    const kept = plan.operations.find((o) => o.path === REPO)!.content;
    // The example's root AGENTS.md is attached beside the repository-wide file on every file (docs/loads.md).
    const agentsMd = [...(await fsp.readFile(path.join(root, 'AGENTS.md'), 'utf8').catch(() => ''))].length;

    // Before the plan every file carries the whole monolith; after it, the kept part and the scoped files that match.
    const cr = sc.loads.surfaces.find((s) => s.surface === 'code-review')!;
    const before = monolith.length + agentsMd;
    expect(cr.before).toEqual({ files: sc.loads.files, mean: before, median: before, p90: before, max: before });
    expect(sc.loads.alwaysOn).toEqual({ before: monolith.length, after: kept.length });
    expect(sc.leftover.chars).toBe(kept.length);
    const largestScoped = Math.max(...plan.operations.filter((o) => o.op === 'create').map((o) => o.content.length));
    expect(cr.after.max).toBeGreaterThanOrEqual(kept.length + agentsMd + largestScoped);
    expect(cr.after.mean).toBeLessThan(cr.before.mean);
    // docs/ holds only Markdown: no scoped file loads there.
    expect(cr.folders.find((f) => f.folder === 'docs')!.after.max).toBe(kept.length + agentsMd);
    expect(sc.loads.budget.chars).toBe(600);
    expect(sc.loads.budget.warnings.map((w) => w.code)).toEqual(['OVER_BUDGET']);
    const k = (n: number) => (n < 1000 ? String(n) : `${(n / 1000).toFixed(1)} K`);
    // The example's AGENTS.md repeats rules of the repository-wide file: code review attaches both, and the line says what that costs.
    const dup = (cr as unknown as { duplicated: { before: Stats; after: Stats } }).duplicated;
    expect(dup.before.mean).toBeGreaterThan(0);
    expect(dup.after.mean).toBeLessThan(dup.before.mean);
    const line = `Copilot attaches on average ${k(cr.after.mean)} instruction characters per file instead of ${k(cr.before.mean)}; at most ${k(cr.after.max)}. Rules attached twice (the same text in two instruction files) account for ${k(dup.after.mean)} of those characters on average, instead of ${k(dup.before.mean)}.`;
    expect(sc.loads.line).toBe(line);
    expect(textOf(p)).toContain(`What loads where: ${line}`);
    expect(textOf(p)).toContain(`Leftover: ${REPO} keeps ${kept.length.toLocaleString('en-US')} characters after the plan (now ${monolith.length.toLocaleString('en-US')}), attached to every request on every surface.`);
    expect(textOf(p)).not.toMatch(/4,000|4000/);
    // Each surface's figure before → after, and each top-level folder's.
    const st = (x: Stats) => `mean ${x.mean.toLocaleString('en-US')}, median ${x.median.toLocaleString('en-US')}, p90 ${x.p90.toLocaleString('en-US')}, max ${x.max.toLocaleString('en-US')}`;
    expect(textOf(p)).toContain(`\n  Copilot code review (github.com): ${st(cr.before)} → ${st(cr.after)}\n`);
    const docs = cr.folders.find((f) => f.folder === 'docs')! as { after: Stats; before?: Stats };
    expect(textOf(p)).toContain(`\n    docs/: mean ${before.toLocaleString('en-US')} → ${docs.after.mean.toLocaleString('en-US')}, max ${before.toLocaleString('en-US')} → ${docs.after.max.toLocaleString('en-US')} (`);

    expect((await h.call('onboarding_approve', {})).isError).toBeFalsy();
    expect((await h.call('onboarding_migrate', {})).isError).toBeFalsy();
    for (const form of h.shown.slice(0, 2)) {
      const m = form.message;
      const summary = m.split('\n\n').find((b) => b.startsWith('Summary:'))!;
      expect(summary.split('\n')).toContain(line);
      for (const o of plan.operations.filter((x) => x.op === 'create')) {
        const s = plan.sections.filter((x) => x.destination === o.path);
        if (!s.length) continue; // another agent's rule copied as it is (no section of the monolith)
        const titles = s.slice(0, 3).map((x) => x.title).join('; ');
        expect(m).toContain(`- Create \`${o.path}\` for files matching \`${s[0]!.applyTo}\` (${o.size.toLocaleString('en-US')} bytes), sections: ${titles}${s.length > 3 ? ` and ${s.length - 3} more` : ''}.`);
      }
      expect(m).toMatch(new RegExp(`- Modify \`${REPO.replace(/\./g, '\\.')}\` \\([\\d,]+ → [\\d,]+ bytes\\), keeping sections: Preamble; Communication\\.`));
      expect(m.length).toBeLessThanOrEqual(4000);
    }
  });

  it('a plan that changes nothing says each figure once, unchanged', async () => {
    const root = workspaceWith('co-noop-', { [REPO]: '# Guide\n\n- Keep commits small.\n- Be kind in reviews.\n', 'src/a.ts': 'export {};\n', 'docs/guide.md': '# Guide\n' });
    const h = await harnesses.open({ root, caps: { elicitation: {} } });
    const p = await h.call('onboarding_propose', { narrate: false });
    expect(p.isError, textOf(p)).toBeFalsy();
    const sc = p.structuredContent as { loads: { surfaces: Array<{ surface: string; before: Stats; after: Stats }> } };
    const cr = sc.loads.surfaces.find((s) => s.surface === 'code-review')!;
    expect(cr.after).toEqual(cr.before);
    const m = cr.after.mean.toLocaleString('en-US');
    expect(textOf(p)).toContain(`\n  Copilot code review (github.com): mean ${m}, median ${m}, p90 ${m}, max ${m}, unchanged\n`);
    expect(textOf(p)).toContain(`\n    docs/: mean ${m}, max ${m}, unchanged (1 file)\n`);
    expect(textOf(p).split('\n').filter((l) => l.includes(' → '))).toEqual([expect.stringMatching(/^Characters attached per file \(\d+ files of the tree\), before → after the plan:$/)]);
  });

  it('propose shows the human another scope for a large section it writes to a folder: its language', async () => {
    const rules = Array.from({ length: 30 }, (_, i) => `- Every command parses its flags first, rule ${i}.`).join('\n');
    const go = '```go\nfunc main() { run() }\n```\n\n```go\nfunc run() error { return nil }\n```';
    const code = 'package x\n';
    const root = workspaceWith('co-alt-', {
      [REPO]: `# Guide\n\nKeep commits small.\n\n## Commands in \`cmd/\`\n\n${rules}\n\n${go}\n\n## Commits\n\n- Imperative mood.\n`,
      'cmd/tool/main.go': code,
      'cmd/tool/flags.go': code,
      'internal/store/db.go': code,
      'internal/store/cache.go': code,
      'internal/api/server.go': code,
      'pkg/util/strings.go': code,
    });
    const h = await harnesses.open({ root, caps: { elicitation: {} } });
    const p = await h.call('onboarding_propose', { narrate: false });
    expect(p.isError, textOf(p)).toBeFalsy();
    const sc = p.structuredContent as { alternatives: Array<{ section: string; title: string; chars: number; applyTo: string; candidates: string[] }> };
    expect(sc.alternatives).toEqual([{ section: expect.stringMatching(/-commands-in-cmd$/), title: 'Commands in `cmd/`', chars: expect.any(Number), applyTo: 'cmd/**', candidates: ['**/*.go'] }]);
    const chars = sc.alternatives[0]!.chars.toLocaleString('en-US');
    expect(textOf(p)).toContain(`Largest sections written to path-specific files whose heading or language gives another scope (ask the human; apply the answers with overrides):\n  ${sc.alternatives[0]!.section} "Commands in \`cmd/\`" (${chars} characters): written to "cmd/**"; other scopes: "**/*.go"`);
  });
});
