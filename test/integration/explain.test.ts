/**
 * `explain <path>` on real temp workspaces: which instruction files each Copilot surface
 * attaches, before and after the plan, and why; the current plan when there is one, a plan made
 * now otherwise; paths outside the workspace refused; the CLI text and --json over the binary.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { explain } from '../../server/src/app/explain.js';
import { propose } from '../../server/src/app/propose.js';
import { OnboardingError } from '../../server/src/core/errors.js';
import { removeWorkspace, tempWorkspace } from '../helpers/harness.js';
import { writeFileIn } from '../helpers/fixtures.js';
import { digest } from '../helpers/workspace.js';

const BIN = path.resolve(import.meta.dirname, '../../dist/index.js');
const REPO = '.github/copilot-instructions.md';
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) removeWorkspace(r);
});

const MONOLITH = [
  '# Project',
  '',
  'Be brief.',
  '',
  '## Python scripts',
  '',
  '- Target Python 3.11; format with ruff; type hints everywhere.',
  '',
  '```python',
  'def main() -> int: ...',
  '```',
  '',
].join('\n');

async function workspace(): Promise<string> {
  const root = tempWorkspace('co-explain-');
  roots.push(root);
  await writeFileIn(root, REPO, MONOLITH);
  await writeFileIn(root, 'scripts/export.py', 'print(1)\n');
  await writeFileIn(root, 'src/app.ts', 'export {};\n');
  await writeFileIn(root, '.github/instructions/review.instructions.md', '---\napplyTo: "src/**"\nexcludeAgent: "code-review"\n---\nReview rules.\n');
  await writeFileIn(root, 'AGENTS.md', 'Agents: rules.\n');
  return root;
}

describe('explain', () => {
  it('lists per surface what is attached now and after a plan made now, with the reason', async () => {
    const root = await workspace();
    const before = await digest(root);
    const e = await explain(root, 'scripts/export.py');
    expect(e.path).toBe('scripts/export.py');
    expect(e.inTree).toBe(true);
    expect(e.plan?.source).toBe('made-now');
    const cr = e.surfaces.find((s) => s.surface === 'code-review')!;
    expect(cr.before.attached.map((a) => [a.path, a.why])).toEqual([
      [REPO, 'always on (repository-wide)'],
      ['AGENTS.md', 'nearest AGENTS.md (the root one)'],
    ]);
    expect(cr.before.chars).toBe([...MONOLITH].length + 'Agents: rules.\n'.length);
    const scoped = cr.after.attached.find((a) => a.path.endsWith('.instructions.md'));
    expect(scoped?.why).toMatch(/^applyTo glob \S+ matches$/);
    expect(cr.after.attached[0]!.path).toBe(REPO);
    expect(cr.after.attached[0]!.chars).toBeLessThan(cr.before.chars);
    // Nothing was stored or changed.
    expect(await digest(root)).toEqual(before);
  });

  it('excludeAgent per surface, AGENTS.md, and the glob as VS Code reads it', async () => {
    const root = await workspace();
    const e = await explain(root, 'src/app.ts');
    const by = (s: string) => e.surfaces.find((x) => x.surface === s)!.before;
    expect(by('code-review').attached.map((a) => a.path)).toEqual([REPO, 'AGENTS.md']);
    expect(by('code-review').skipped).toEqual([expect.objectContaining({ path: '.github/instructions/review.instructions.md', why: 'applyTo glob src/** matches, but excludeAgent skips it on this surface' })]);
    expect(by('cloud-agent').attached.map((a) => [a.path, a.why])).toEqual([
      [REPO, 'always on (repository-wide)'],
      ['.github/instructions/review.instructions.md', 'applyTo glob src/** matches'],
      ['AGENTS.md', 'nearest AGENTS.md (the root one)'],
    ]);
    // VS Code prefixes the glob with **/ and reads the root AGENTS.md as always on.
    expect(by('vscode-chat').attached.map((a) => [a.path, a.why])).toEqual([
      [REPO, 'always on (repository-wide)'],
      ['.github/instructions/review.instructions.md', 'applyTo glob src/** (read as **/src/**) matches'],
      ['AGENTS.md', 'root AGENTS.md, always on (chat.useAgentsMdFile)'],
    ]);
    expect(by('code-review').chars).toBe([...MONOLITH].length + 'Agents: rules.\n'.length);
  });

  it('uses the current plan when it is still what the tool makes; notes a path that is not in the tree', async () => {
    const root = await workspace();
    const { plan } = await propose(root, [{ section: 'Python scripts', keepRepoWide: true }]);
    const e = await explain(root, path.join(root, 'scripts', 'new.py'));
    expect(e.plan).toEqual({ planId: plan.planId, source: 'current' });
    expect(e.path).toBe('scripts/new.py');
    expect(e.inTree).toBe(false);
    const cr = e.surfaces.find((s) => s.surface === 'code-review')!;
    // The human kept the Python section repository-wide: nothing scoped loads for a .py file.
    expect(cr.after.attached.map((a) => a.path)).toEqual([REPO, 'AGENTS.md']);
  });

  it('refuses a path outside the workspace', async () => {
    const root = await workspace();
    for (const bad of ['../etc/passwd', '/etc/passwd', '.']) {
      await expect(explain(root, bad)).rejects.toSatisfy((e: unknown) => e instanceof OnboardingError && e.code === 'INVALID_INPUT');
    }
  });

  it('the CLI prints every surface with before and after, and --json the same facts', async () => {
    const root = await workspace();
    const run = (args: string[]) =>
      new Promise<{ code: number; out: string }>((resolve) =>
        execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH } }, (err, out) => resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, out })),
      );
    const t = await run(['explain', 'src/app.ts', '--workspace', root]);
    expect(t.code).toBe(0);
    expect(t.out).toContain('What Copilot attaches when src/app.ts is in play');
    expect(t.out).toContain('Copilot code review (github.com):\n  now: ');
    expect(t.out).toContain('    not attached: .github/instructions/review.instructions.md (');
    expect(t.out).toContain('Copilot Chat in VS Code:');
    const j = await run(['explain', 'src/app.ts', '--workspace', root, '--json']);
    const data = JSON.parse(j.out).data;
    expect(data.surfaces.map((s: { surface: string }) => s.surface)).toEqual(['code-review', 'cloud-agent', 'vscode-chat']);
    expect((await run(['explain', '../x', '--workspace', root])).code).toBe(2);
    // A hostile file name reaches the terminal escaped, never as a bidi or escape character.
    await writeFileIn(root, 'src/\u202Egnp.ts', '');
    const h = await run(['explain', 'src/\u202Egnp.ts\u001b[31m', '--workspace', root]);
    expect(h.code).toBe(0);
    expect(h.out).not.toMatch(/[\u202E\u001b]/);
    expect(h.out).toContain('src/\\u202Egnp.ts\\x1B[31m');
  });
});
