import { describe, expect, it } from 'vitest';
import {
  applyOperations,
  attachedTo,
  budgetWarnings,
  charsPerFile,
  figureLine,
  kChars,
  loadFigure,
  loadRules,
  stats,
  surfaceGlob,
  treeFiles,
  type InstructionText,
} from '../../server/src/core/loads.js';

const REPO = '.github/copilot-instructions.md';
const scoped = (name: string, applyTo: string, body: string, extra = '') => ({
  path: `.github/instructions/${name}.instructions.md`,
  text: `---\napplyTo: "${applyTo}"\n${extra}---\n${body}`,
});
const x = (n: number) => 'x'.repeat(n);

describe('stats', () => {
  it('mean, median, 90th percentile (nearest rank) and max', () => {
    expect(stats([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).toEqual({ files: 10, mean: 6, median: 6, p90: 9, max: 10 });
    expect(stats([5, 1, 3])).toEqual({ files: 3, mean: 3, median: 3, p90: 5, max: 5 });
    expect(stats([])).toEqual({ files: 0, mean: 0, median: 0, p90: 0, max: 0 });
  });
});

describe('glob matching per surface', () => {
  it('github.com anchors globs at the root; VS Code matches them at any depth, case-insensitively', () => {
    const gh = surfaceGlob('*.py', 'code-review').test;
    expect(gh('a.py')).toBe(true);
    expect(gh('src/a.py')).toBe(false);
    const vs = surfaceGlob('*.py', 'vscode-chat');
    expect(vs.as).toBe('**/*.py');
    expect(vs.test('src/a.py')).toBe(true);
    expect(surfaceGlob('src/**', 'vscode-chat').test('pkg/src/a.ts')).toBe(true);
    expect(surfaceGlob('src/**', 'cloud-agent').test('pkg/src/a.ts')).toBe(false);
    expect(surfaceGlob('SRC/**', 'vscode-chat').test('src/a.ts')).toBe(true);
    expect(surfaceGlob('SRC/**', 'code-review').test('src/a.ts')).toBe(false);
    expect(surfaceGlob('/src/**', 'vscode-chat').test('src/a.ts')).toBe(false);
    expect(surfaceGlob('/src/**', 'code-review').test('src/a.ts')).toBe(true);
    expect(surfaceGlob('**/*.{ts,tsx}', 'code-review').test('web/App.tsx')).toBe(true);
    expect(surfaceGlob('**/.github/**', 'code-review').test('.github/workflows/ci.yml')).toBe(true);
    expect(surfaceGlob('*', 'code-review').test('src/a.ts')).toBe(false);
    expect(surfaceGlob('*', 'vscode-chat').test('src/a.ts')).toBe(true);
  });
});

describe('what loads where, on a hand-made tree', () => {
  // 4 files: two TypeScript under src/, one Python under scripts/, one README at the root.
  const tree = ['README.md', 'scripts/export.py', 'src/a.ts', 'src/b.test.ts'];
  const before: InstructionText[] = [{ path: REPO, text: x(1000) }];
  const ts = scoped('typescript', '**/*.ts', x(200));
  const py = scoped('python', 'scripts/**', x(100), 'excludeAgent: "code-review"\n');
  const afterRepo = x(300);
  const after = applyOperations(before, [
    { op: 'modify', path: REPO, content: afterRepo },
    { op: 'create', path: ts.path, content: ts.text },
    { op: 'create', path: py.path, content: py.text },
  ]);
  const tsChars = [...ts.text].length;
  const pyChars = [...py.text].length;

  it('adds the repository-wide file to every file and each scoped file where its glob matches', () => {
    const rules = loadRules(after);
    expect([...charsPerFile(rules, tree, 'cloud-agent')]).toEqual([300, 300 + pyChars, 300 + tsChars, 300 + tsChars]);
    // excludeAgent: code-review skips python.instructions.md
    expect([...charsPerFile(rules, tree, 'code-review')]).toEqual([300, 300, 300 + tsChars, 300 + tsChars]);
  });

  it('before and after, overall and per top-level folder', () => {
    const f = loadFigure(tree, before, after);
    expect(f.files).toBe(4);
    expect(f.alwaysOn).toEqual({ before: 1000, after: 300 });
    const cr = f.surfaces.find((s) => s.surface === 'code-review')!;
    expect(cr.before).toEqual({ files: 4, mean: 1000, median: 1000, p90: 1000, max: 1000 });
    expect(cr.after.max).toBe(300 + tsChars);
    expect(cr.after.mean).toBe(Math.round((300 + 300 + 2 * (300 + tsChars)) / 4));
    expect(cr.folders.map((g) => g.folder)).toEqual(['.', 'scripts', 'src']);
    expect(cr.folders.find((g) => g.folder === 'src')!.after).toMatchObject({ files: 2, max: 300 + tsChars });
    expect(figureLine(f)).toBe(`Copilot attaches on average ${kChars(cr.after.mean)} instruction characters per file instead of 1.0 K; at most ${kChars(cr.after.max)}.`);
  });

  it('explains which files apply to a path and why, with excludeAgent per surface', () => {
    const rules = loadRules(after);
    const cr = attachedTo(rules, 'scripts/export.py', 'code-review');
    expect(cr.attached.map((a) => a.path)).toEqual([REPO]);
    expect(cr.skipped).toEqual([{ path: py.path, chars: pyChars, why: 'applyTo glob scripts/** matches, but excludeAgent skips it on this surface' }]);
    const ca = attachedTo(rules, 'scripts/export.py', 'cloud-agent');
    expect(ca.attached.map((a) => [a.path, a.why])).toEqual([
      [REPO, 'always on (repository-wide)'],
      [py.path, 'applyTo glob scripts/** matches'],
    ]);
    const vs = attachedTo(rules, 'src/a.ts', 'vscode-chat');
    expect(vs.attached[1]).toEqual({ path: ts.path, chars: tsChars, why: 'applyTo glob **/*.ts matches' });
  });

  it('leaves vendored folders out of the tree', () => {
    expect(treeFiles(['a.ts', 'node_modules/x/y.js', 'vendor/z.go', 'pkg/third_party/q.c', 'src/vendorish.ts'])).toEqual(['a.ts', 'src/vendorish.ts']);
  });
});

describe('AGENTS.md, CLAUDE.md', () => {
  const tree = ['a.ts', 'pkg/b.ts', 'pkg/sub/c.ts'];
  it('the nearest AGENTS.md on github.com, the root one in VS Code', () => {
    const rules = loadRules([
      { path: 'AGENTS.md', text: x(50) },
      { path: 'pkg/AGENTS.md', text: x(70) },
    ]);
    expect([...charsPerFile(rules, tree, 'code-review')]).toEqual([50, 70, 70]);
    expect([...charsPerFile(rules, tree, 'vscode-chat')]).toEqual([50, 50, 50]);
    expect(attachedTo(rules, 'pkg/sub/c.ts', 'cloud-agent').attached[0]!.why).toBe('nearest AGENTS.md (folder pkg)');
  });
  it('CLAUDE.md counts for the cloud agent only when no AGENTS.md applies', () => {
    const rules = loadRules([
      { path: 'pkg/AGENTS.md', text: x(70) },
      { path: 'CLAUDE.md', text: x(30) },
    ]);
    expect([...charsPerFile(rules, tree, 'cloud-agent')]).toEqual([30, 70, 70]);
    expect([...charsPerFile(rules, tree, 'code-review')]).toEqual([0, 70, 70]);
  });
});

describe('budget', () => {
  const tree = ['a.ts', 'src/b.ts'];
  const before = [{ path: REPO, text: x(500) }];
  it('no budget, no warning; no fixed limit', () => {
    expect(budgetWarnings(loadFigure(tree, [{ path: REPO, text: x(50_000) }], [{ path: REPO, text: x(50_000) }]), undefined)).toEqual([]);
  });
  it('REPO_WIDE_TOO_LONG when the always-on file alone passes the budget, OVER_BUDGET naming folders otherwise', () => {
    const f = loadFigure(tree, before, before);
    expect(budgetWarnings(f, 400).map((w) => w.code)).toEqual(['REPO_WIDE_TOO_LONG']);
    expect(budgetWarnings(f, 500)).toEqual([]);
    const ts = scoped('ts', 'src/**', x(300));
    const g = loadFigure(tree, before, [...before, ts]);
    const w = budgetWarnings(g, 600);
    expect(w.map((v) => v.code)).toEqual(['OVER_BUDGET']);
    expect(w[0]!.message).toContain('src/ (at most');
  });
});

describe('many files', () => {
  it('20 folder-scoped files over 5,000 files: each file gets the one its folder glob matches', () => {
    const files = Array.from({ length: 5000 }, (_, i) => `d${i % 50}/f${i}.${i % 3 ? 'ts' : 'py'}`);
    const rules = loadRules(Array.from({ length: 20 }, (_, i) => scoped(`t${i}`, `d${i}/**`, x(10))));
    const got = charsPerFile(rules, files, 'code-review');
    // d0..d19 each hold 100 files; d20..d49 match no glob
    const matched = [...got].filter((v) => v > 0).length;
    expect(matched).toBe(20 * 100);
  });
});
