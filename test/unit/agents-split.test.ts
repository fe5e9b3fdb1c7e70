import { describe, expect, it } from 'vitest';
import { analyze } from '../../server/src/core/analyze.js';
import { sha256Hex } from '../../server/src/core/canonical.js';
import { buildOnboardingPlan } from '../../server/src/core/agents/plan.js';
import { proveAgentsKeepRules } from '../../server/src/core/agents/split.js';
import { verifyLossless } from '../../server/src/core/plan.js';
import type { Snapshot, SourceFile } from '../../server/src/core/types.js';

const enc = (s: string) => new TextEncoder().encode(s);
function src(p: string, content: string): SourceFile {
  const bytes = enc(content);
  return { path: p, kind: p === '.github/copilot-instructions.md' ? 'copilot-repo' : 'other-agent', bytes, size: bytes.length, sha256: sha256Hex(bytes) };
}
const snap = (sources: SourceFile[], files: string[]): Snapshot => ({ sources, refused: [], files: [...files, ...sources.map((s) => s.path)].sort(), filesTruncated: false });
const plan = (s: Snapshot) => buildOnboardingPlan({ snapshot: s, analysis: analyze(s), overrides: [] });

const GEMINI = '# Notes\n\n- Small commits.\n\n## Python\n\n- Use type hints on every public function in scripts.\n';

describe('splitting CLAUDE.md / GEMINI.md', () => {
  it('GEMINI.md alone: the Python section moves, GEMINI.md imports it, every byte is in one output', () => {
    const s = snap([src('GEMINI.md', GEMINI)], ['scripts/a.py']);
    const p = plan(s);
    const g = p.operations.find((o) => o.path === 'GEMINI.md')!;
    const py = p.operations.find((o) => o.op === 'create')!;
    expect(g.content).toBe(`# Notes\n\n- Small commits.\n\n@./${py.path}\n\n`);
    expect(py.content!.endsWith('---\n## Python\n\n- Use type hints on every public function in scripts.\n')).toBe(true);
    expect(p.lossless.coveredSources).toEqual(['GEMINI.md']);
    const outputs = new Map(p.operations.map((o) => [o.path, enc(o.content!)] as const));
    expect(verifyLossless(p, new Map([['GEMINI.md', s.sources[0]!.bytes]]), outputs)).toEqual({ ok: true, errors: [] });
    expect(proveAgentsKeepRules(p)).toEqual([]);
  });

  it('the per-agent proof fails when the import line is missing: the agent would lose the moved rules', () => {
    const p = plan(snap([src('GEMINI.md', GEMINI)], ['scripts/a.py']));
    const broken = { ...p, operations: p.operations.map((o) => (o.path === 'GEMINI.md' ? { ...o, content: '# Notes\n\n- Small commits.\n\n' } : o)) };
    expect(proveAgentsKeepRules(broken)).toEqual([expect.stringContaining('GEMINI.md moves rules into .github/instructions/')]);
  });

  it('GEMINI.md is not split when CLAUDE.md is what github.com attaches; CLAUDE.md is', () => {
    const p = plan(snap([src('CLAUDE.md', GEMINI), src('GEMINI.md', GEMINI)], ['scripts/a.py']));
    expect(p.agents!.splits!.map((x) => [x.source, x.mode])).toEqual([['CLAUDE.md', 'move']]);
    expect(p.agents!.kept.find((k) => k.path === 'GEMINI.md')!.reason).toContain('instead of it');
  });

  it('a file with no confidently scoped section is kept, with the reason', () => {
    const p = plan(snap([src('CLAUDE.md', '# Notes\n\n- Small commits always.\n')], []));
    expect(p.operations).toEqual([]);
    expect(p.agents!.kept[0]!.reason).toContain('no section of it has a confident path-specific scope');
  });
});

describe('a file another agent reads through a symlink', () => {
  it('is not split: AGENTS.md -> CLAUDE.md keeps CLAUDE.md as it is', () => {
    const claude = src('CLAUDE.md', GEMINI);
    const link = { ...src('AGENTS.md', GEMINI), linkTo: 'CLAUDE.md' };
    const p = plan(snap([claude, link], ['scripts/a.py']));
    expect(p.operations).toEqual([]);
    expect(p.agents!.kept.find((k) => k.path === 'CLAUDE.md')!.reason).toContain('AGENTS.md is a symlink to it');
  });
});
