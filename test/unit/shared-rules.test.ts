/**
 * Issue 21, one source of truth chosen by a person: the shared-rules question and its answers
 * (core/agents/shared-rules.ts), and what each choice does to the plan (core/agents/plan.ts,
 * core/agents/pointers.ts): CLAUDE.md / GEMINI.md import the chosen file in place of their
 * byte-for-byte copies; a file without an import form keeps its copies, and says why.
 */
import { describe, expect, it } from 'vitest';
import { analyze } from '../../server/src/core/analyze.js';
import { sha256Hex } from '../../server/src/core/canonical.js';
import { buildOnboardingPlan } from '../../server/src/core/agents/plan.js';
import { checkPointers } from '../../server/src/core/agents/pointers.js';
import { agentInventory } from '../../server/src/core/agents/inventory.js';
import {
  SHARED_RULES_QUESTION,
  isSharedRulesQuestion,
  parseSharedRulesAnswer,
  resolveSharedRules,
  sharedRulesAsk,
  withSharedRulesAnswer,
} from '../../server/src/core/agents/shared-rules.js';
import { verifyLossless } from '../../server/src/core/lossless.js';
import { OnboardingError } from '../../server/src/core/errors.js';
import type { AnyOverride } from '../../server/src/schemas/plan.js';
import type { Snapshot, SourceFile } from '../../server/src/core/types.js';

const enc = (s: string) => new TextEncoder().encode(s);
function src(p: string, content: string): SourceFile {
  const bytes = enc(content);
  return { path: p, kind: p === '.github/copilot-instructions.md' ? 'copilot-repo' : 'other-agent', bytes, size: bytes.length, sha256: sha256Hex(bytes) };
}
const snap = (sources: SourceFile[]): Snapshot => ({ sources, refused: [], files: sources.map((s) => s.path).sort(), filesTruncated: false });
const build = (s: Snapshot, overrides: AnyOverride[]) => buildOnboardingPlan({ snapshot: s, analysis: analyze(s), overrides });
const outputsOf = (p: { operations: Array<{ path: string; content: string | null }> }) => new Map(p.operations.map((o) => [o.path, o.content === null ? null : enc(o.content)] as const));
const sourcesOf = (s: Snapshot) => new Map(s.sources.map((x) => [x.path, x.bytes]));

const PNPM = '- Use pnpm for every install in this repository.\n';
const TESTS = '- Run the tests with pnpm test before every commit.\n';
const REPO = `# Repo\n\n${PNPM}\n${TESTS}`;
const AGENTS = `# Agents\n\n${PNPM}\n- Keep every public function documented with examples.\n`;
const CLAUDE = `# Claude\n\n${PNPM}\n- Prefer small, focused pull requests over large ones.\n\n${TESTS}`;
const errorOf = (f: () => unknown): OnboardingError => {
  try {
    f();
  } catch (e) {
    return e as OnboardingError;
  }
  throw new Error('no error');
};

describe('the shared-rules answer', () => {
  it('reads the allowed answers loosely (case, quotes, a full stop) and nothing else', () => {
    expect(parseSharedRulesAnswer('AGENTS.md')).toBe('AGENTS.md');
    expect(parseSharedRulesAnswer(' "agents.md". ')).toBe('AGENTS.md');
    expect(parseSharedRulesAnswer('Copilot')).toBe('copilot');
    expect(parseSharedRulesAnswer('keep')).toBe('keep');
    expect(parseSharedRulesAnswer('both, I guess')).toBeNull();
    expect(parseSharedRulesAnswer('')).toBeNull();
  });

  it('only exactly the question counts (surrounding spaces aside); other questions do not', () => {
    expect(isSharedRulesQuestion(SHARED_RULES_QUESTION)).toBe(true);
    expect(isSharedRulesQuestion(`  ${SHARED_RULES_QUESTION}\n`)).toBe(true);
    expect(isSharedRulesQuestion(`${SHARED_RULES_QUESTION} Please.`)).toBe(false);
    expect(isSharedRulesQuestion('Which scope for Testing?')).toBe(false);
  });

  it('becomes the override {sharedRules}; an unknown answer or a contradicting override is a clear error', () => {
    expect(withSharedRulesAnswer([], { answer: 'AGENTS.md', file: 'q.yaml' })).toEqual([{ sharedRules: 'AGENTS.md' }]);
    expect(withSharedRulesAnswer([{ sharedRules: 'copilot' }], { answer: 'copilot', file: 'q.yaml' })).toEqual([{ sharedRules: 'copilot' }]);
    expect(withSharedRulesAnswer([{ section: 's01' }], null)).toEqual([{ section: 's01' }]);
    const unknown = errorOf(() => withSharedRulesAnswer([], { answer: 'both', file: '.copilot-state/questions/x_question.yaml' }));
    expect(unknown.code).toBe('INVALID_INPUT');
    expect(unknown.message).toContain('"both" saved in .copilot-state/questions/x_question.yaml');
    expect(unknown.message).toContain('"AGENTS.md", "Copilot", "keep"');
    const conflict = errorOf(() => withSharedRulesAnswer([{ file: 'CLAUDE.md', pointer: '@AGENTS.md' }], { answer: 'Copilot', file: 'q.yaml' }));
    expect(conflict.code).toBe('INVALID_INPUT');
    expect(conflict.message).toMatch(/answered "Copilot" \(saved in q\.yaml\).*contradicts/);
    // A malformed override (the CLI passes --override through unchecked) is named as such, not as a contradiction.
    const malformed = errorOf(() => withSharedRulesAnswer([{ file: 'README.md', pointer: '@AGENTS.md' } as never], { answer: 'Copilot', file: 'q.yaml' }));
    expect(malformed.code).toBe('INVALID_INPUT');
    expect(malformed.message).toContain('is none of the override forms');
    expect(malformed.message).not.toContain('answered');
  });

  it('conflicting overrides are errors; the stored form is one per file, sorted, then the choice', () => {
    expect(errorOf(() => resolveSharedRules([{ sharedRules: 'AGENTS.md' }, { sharedRules: 'copilot' }])).message).toContain('choose different files');
    expect(errorOf(() => resolveSharedRules([{ file: 'CLAUDE.md', pointer: '@AGENTS.md' }, { file: 'CLAUDE.md', pointer: '@.github/copilot-instructions.md' }])).message).toContain('point CLAUDE.md to different files');
    expect(errorOf(() => resolveSharedRules([{ sharedRules: 'keep' }, { file: 'GEMINI.md', pointer: '@AGENTS.md' }])).message).toContain('contradicts {"sharedRules":"keep"}');
    expect(errorOf(() => resolveSharedRules([{ file: 'X.md', pointer: '@AGENTS.md' } as unknown as AnyOverride])).message).toContain('none of the override forms');
    const r = resolveSharedRules([{ sharedRules: 'AGENTS.md' }, { file: 'GEMINI.md', pointer: '@AGENTS.md' }, { file: 'GEMINI.md', pointer: '@AGENTS.md' }]);
    expect(r.stored).toEqual([{ file: 'GEMINI.md', pointer: '@AGENTS.md' }, { sharedRules: 'AGENTS.md' }]);
    expect([...r.pointers]).toEqual([
      ['GEMINI.md', '@AGENTS.md'],
      ['CLAUDE.md', '@AGENTS.md'],
    ]);
  });

  it('propose asks when CLAUDE.md shares a rule with Copilot or AGENTS.md and nobody chose; not after a choice, nor when no choice can act', () => {
    const s = snap([src('.github/copilot-instructions.md', REPO), src('AGENTS.md', AGENTS), src('CLAUDE.md', CLAUDE)]);
    const ask = sharedRulesAsk(agentInventory(s), [], null);
    expect(ask).toMatchObject({ ask: true, choice: null, duplicates: 2, actionable: 2, question: SHARED_RULES_QUESTION });
    expect(ask.answers.map((a) => [a.answer, a.override])).toEqual([
      ['AGENTS.md', { sharedRules: 'AGENTS.md' }],
      ['Copilot', { sharedRules: 'copilot' }],
      ['keep', { sharedRules: 'keep' }],
    ]);
    expect(sharedRulesAsk(agentInventory(s), [{ sharedRules: 'keep' }], { answer: 'keep', file: 'q.yaml' })).toMatchObject({ ask: false, choice: 'keep', from: 'q.yaml' });
    expect(sharedRulesAsk(agentInventory(snap([src('AGENTS.md', AGENTS)])), [], null).ask).toBe(false);
    // Copilot's file and AGENTS.md alone: neither can import the other, so there is nothing to choose.
    expect(sharedRulesAsk(agentInventory(snap([src('.github/copilot-instructions.md', REPO), src('AGENTS.md', AGENTS)])), [], null)).toMatchObject({ ask: false, duplicates: 1, actionable: 0 });
  });
});

describe('what the choice does to the plan', () => {
  it('copilot: CLAUDE.md imports the repository-wide file in place of its copies; AGENTS.md keeps its copy, with the reason; lossless', () => {
    const s = snap([src('.github/copilot-instructions.md', REPO), src('AGENTS.md', AGENTS), src('CLAUDE.md', CLAUDE)]);
    const p = build(s, [{ sharedRules: 'copilot' }]);
    const claude = p.operations.find((o) => o.path === 'CLAUDE.md')!;
    expect(claude.content).toBe('# Claude\n\n@.github/copilot-instructions.md\n\n- Prefer small, focused pull requests over large ones.\n\n');
    expect(p.operations.map((o) => o.path)).toEqual(['CLAUDE.md']);
    expect(p.agents!.pointers![0]!.copies.map((c) => c.sameAs.path)).toEqual(['.github/copilot-instructions.md', '.github/copilot-instructions.md']);
    expect(p.overrides).toEqual([{ sharedRules: 'copilot' }]);
    expect(p.agents!.sharedRules!.choice).toBe('copilot');
    expect(p.agents!.sharedRules!.notes.join('\n')).toContain('AGENTS.md keeps its 1 rule(s) also written in Copilot');
    expect(p.lossless.ok).toBe(true);
    expect(verifyLossless(p, sourcesOf(s), outputsOf(p))).toEqual({ ok: true, errors: [] });
  });

  it('AGENTS.md: CLAUDE.md imports AGENTS.md; Copilot files keep their copies and name the surfaces that do not read AGENTS.md', () => {
    const s = snap([src('.github/copilot-instructions.md', REPO), src('AGENTS.md', AGENTS), src('CLAUDE.md', CLAUDE)]);
    const p = build(s, [{ sharedRules: 'AGENTS.md' }]);
    expect(p.operations.find((o) => o.path === 'CLAUDE.md')!.content).toBe(`# Claude\n\n@AGENTS.md\n\n- Prefer small, focused pull requests over large ones.\n\n${TESTS}`);
    expect(p.operations.some((o) => o.path === '.github/copilot-instructions.md' || o.path === 'AGENTS.md')).toBe(false);
    expect(p.agents!.sharedRules!.notes.join('\n')).toMatch(/\.github\/copilot-instructions\.md keeps its 1 rule\(s\) also written in AGENTS\.md: .*no documented import form.*Copilot Chat on github\.com/);
    expect(verifyLossless(p, sourcesOf(s), outputsOf(p)).ok).toBe(true);
  });

  it('keep: nothing is pointed, and the choice is stored', () => {
    const s = snap([src('.github/copilot-instructions.md', REPO), src('AGENTS.md', AGENTS), src('CLAUDE.md', CLAUDE)]);
    const p = build(s, [{ sharedRules: 'keep' }]);
    expect(p.agents!.pointers).toBeUndefined();
    expect(p.overrides).toEqual([{ sharedRules: 'keep' }]);
  });

  it('copilot, when the plan changes the repository-wide file: the copies are checked against its new content', () => {
    const repo = `# Repo\n\n${PNPM}\n## Python\n\n- Use type hints on every public function in the scripts folder.\n`;
    const s: Snapshot = { ...snap([src('.github/copilot-instructions.md', repo), src('CLAUDE.md', `# Claude\n\n${PNPM}`)]), files: ['.github/copilot-instructions.md', 'CLAUDE.md', 'scripts/a.py'] };
    const p = build(s, [{ sharedRules: 'copilot' }]);
    expect(p.operations.find((o) => o.path === '.github/copilot-instructions.md')?.op).toBe('modify');
    expect(p.operations.find((o) => o.path === 'CLAUDE.md')!.content).toBe('# Claude\n\n@.github/copilot-instructions.md\n\n');
    expect(verifyLossless(p, sourcesOf(s), outputsOf(p))).toEqual({ ok: true, errors: [] });
    // The copy must still be in the repository-wide file as written: remove it there and the check fails.
    const outputs = outputsOf(p);
    outputs.set('.github/copilot-instructions.md', enc('# Repo\n\n'));
    expect(checkPointers(p, sourcesOf(s), outputs).join(' ')).toContain('are not a copy of .github/copilot-instructions.md');
  });

  it('a file the choice points, but which has no copy, is split or kept as usual and says so', () => {
    const s: Snapshot = { ...snap([src('CLAUDE.md', '# Notes\n\n- Small commits.\n\n## Python\n\n- Use type hints on every public function in scripts.\n'), src('.github/copilot-instructions.md', '# Repo\n\n- Be kind to every reviewer, always.\n')]), files: ['CLAUDE.md', '.github/copilot-instructions.md', 'scripts/a.py'] };
    const p = build(s, [{ sharedRules: 'copilot' }]);
    expect(p.agents!.splits?.map((x) => x.source)).toEqual(['CLAUDE.md']);
    expect(p.agents!.sharedRules!.notes[0]).toContain('CLAUDE.md is not pointed to .github/copilot-instructions.md: no rule of CLAUDE.md is a byte-for-byte copy');
  });
});

describe('near duplicates in the propose text', () => {
  it('are listed with line ranges, bounded, with control and bidi characters made safe', async () => {
    const { planFacts, planText } = await import('../../server/src/app/facts.js');
    const evil = '- Always run the \u202elinter\u001b[31m with pnpm lint before every push today.\n';
    const near = '- Always run the \u202elinter\u001b[31m with pnpm lint before each push today.\n';
    const many = Array.from({ length: 30 }, (_, i) => `- Rule number ${i} says to keep the module ${i} small and simple.\n`);
    const manyNear = Array.from({ length: 30 }, (_, i) => `- Rule number ${i} says to keep the module ${i} small and tidy.\n`);
    const s = snap([src('.github/copilot-instructions.md', `# Repo\n\n${evil}\n${many.join('\n')}`), src('AGENTS.md', `# Agents\n\n${near}\n${manyNear.join('\n')}`)]);
    const p = build(s, []);
    const f = planFacts(p, 'plan.json', null, undefined, { duplicates: agentInventory(s).duplicates });
    const total = f.agents!.nearDuplicates.total;
    expect(total).toBeGreaterThan(20);
    expect(f.agents!.nearDuplicates.listed).toHaveLength(20);
    expect(f.agents!.nearDuplicates.listed[0]!.occurrences).toEqual([
      { path: '.github/copilot-instructions.md', startLine: 3, endLine: 3 },
      { path: 'AGENTS.md', startLine: 3, endLine: 3 },
    ]);
    const text = planText(f);
    expect(text).toContain('the plan changes none of them');
    expect(text).toContain(`… and ${total - 10} more (onboarding_analyze lists them)`);
    expect(text).not.toMatch(/[\u202e\u001b]/);
  });
});
