/**
 * Issue 21, one source of truth chosen by a person, end to end through the SDK client with a
 * scripted human: propose finds rules written both in Copilot's file and in CLAUDE.md / AGENTS.md
 * and says which question to ask; the agent asks it word for word with question_ask; the next
 * propose reads the saved answer as the override {sharedRules}; approve, migrate and rollback
 * go through the real gates, and rollback restores every file byte for byte. A bad answer is a
 * clear error and changes nothing.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { YES_APPROVE, YES_MIGRATE, YES_ROLLBACK, harnessesPerTest, textOf } from '../helpers/harness.js';
import { digest } from '../helpers/workspace.js';
import { workspaceWith } from '../helpers/files.js';

const answer = (text: string): ElicitResult => ({ action: 'accept', content: { answer: text } });
const harnesses = harnessesPerTest();
const sc = (r: { structuredContent?: unknown }) => r.structuredContent as Record<string, any>;

const workspace = (files: Record<string, string | Uint8Array>): string => workspaceWith('co-shared-', files);

const PNPM = '- Use pnpm for every install in this repository.\n';
const TESTS = '- Run the tests with pnpm test before every commit.\n';
const REPO = `# Repo\n\n${PNPM}\n${TESTS}`;
const AGENTS = `# Agents\n\n${PNPM}\n- Keep every public function documented with examples.\n`;
const CLAUDE = `# Claude\n\n${PNPM}\n- Prefer small, focused pull requests over large ones.\n\n${TESTS}\n- Always run the linter with pnpm lint before every push.\n`;
const FILES = { '.github/copilot-instructions.md': REPO, 'AGENTS.md': AGENTS, 'CLAUDE.md': CLAUDE, '.github/instructions/lint.instructions.md': '---\napplyTo: "**/*.ts"\n---\n- Always run the linter with pnpm lint before each push.\n' };

describe('the shared-rules choice, through question_ask', () => {
  it('propose names the question; the answer "Copilot" becomes the override; approve, migrate, rollback byte-exact', async () => {
    const root = workspace(FILES);
    const hh = await harnesses.open({ root, caps: { elicitation: {} }, elicit: [answer('Copilot'), YES_APPROVE, YES_MIGRATE, YES_ROLLBACK] });
    const before = await digest(root);

    const a = await hh.call('onboarding_analyze', { narrate: false });
    expect(textOf(a)).toMatch(/near \(\d+%\): "- Always run the linter.*" in \.github\/instructions\/lint\.instructions\.md lines 4-4 and CLAUDE\.md lines 9-9/);
    expect(textOf(a)).toContain('propose never rewrites them');

    const first = await hh.call('onboarding_propose', { narrate: false });
    expect(first.isError, textOf(first)).toBeFalsy();
    const ask = sc(first).sharedRules;
    expect(ask).toMatchObject({ ask: true, choice: null, duplicates: 2 });
    expect(ask.answers.map((a: any) => a.answer)).toEqual(['AGENTS.md', 'Copilot', 'keep']);
    expect(textOf(first)).toContain(`Question (word for word): ${ask.question}`);
    expect(textOf(first)).toContain('override {"sharedRules":"copilot"}');
    // Near duplicates are listed with their line ranges and left as they are.
    expect(sc(first).agents.nearDuplicates.listed[0].occurrences).toEqual([
      { path: '.github/instructions/lint.instructions.md', startLine: 4, endLine: 4 },
      { path: 'CLAUDE.md', startLine: 9, endLine: 9 },
    ]);
    expect(textOf(first)).toMatch(/Near duplicates .*\n {2}\d+% alike: "- Always run the linter.*" in \.github\/instructions\/lint\.instructions\.md lines 4-4 and CLAUDE\.md lines 9-9/);
    expect(sc(first).operations).toEqual([]);

    const q = await hh.call('question_ask', { question: ask.question });
    expect(q.isError, textOf(q)).toBeFalsy();
    expect(hh.shown[0]!.message).toContain('Which should hold the shared rules?');

    const p = await hh.call('onboarding_propose', { narrate: false });
    expect(p.isError, textOf(p)).toBeFalsy();
    expect(sc(p).sharedRules).toMatchObject({ ask: false, choice: 'copilot', from: sc(q).saved_to });
    const plan = JSON.parse(await fsp.readFile(path.join(root, sc(p).planFile), 'utf8'));
    expect(plan.overrides).toEqual([{ sharedRules: 'copilot' }]);
    // The second copy ends the repository-wide file, so only its own line break goes with it.
    const expected = '# Claude\n\n@.github/copilot-instructions.md\n\n- Prefer small, focused pull requests over large ones.\n\n\n- Always run the linter with pnpm lint before every push.\n';
    expect(plan.operations.map((o: any) => [o.op, o.path, o.content])).toEqual([['modify', 'CLAUDE.md', expected]]);
    expect(plan.lossless.ok).toBe(true);
    expect(sc(p).sharedRules.notes.join('\n')).toContain('AGENTS.md keeps its 1 rule(s) also written in Copilot');
    expect(sc(p).agents.pointers).toEqual([{ file: 'CLAUDE.md', pointer: '@.github/copilot-instructions.md', copies: 2 }]);
    expect(textOf(p)).toContain('the 2 rule(s) taken out of CLAUDE.md are byte-for-byte in the file it now imports (@.github/copilot-instructions.md)');
    expect(await digest(root)).toEqual(before);

    expect(sc(await hh.call('onboarding_approve', {})).approved).toBe(true);
    expect(hh.shown[1]!.message).toContain('@.github/copilot-instructions.md');
    const m = await hh.call('onboarding_migrate', {});
    expect(m.isError, textOf(m)).toBeFalsy();
    expect(sc(m)).toMatchObject({ migrated: true, verified: true });
    expect(await fsp.readFile(path.join(root, 'CLAUDE.md'), 'utf8')).toBe(expected);
    expect(await fsp.readFile(path.join(root, 'AGENTS.md'), 'utf8')).toBe(AGENTS);
    expect(await fsp.readFile(path.join(root, '.github/copilot-instructions.md'), 'utf8')).toBe(REPO);

    const r = await hh.call('onboarding_rollback', {});
    expect(r.isError, textOf(r)).toBeFalsy();
    const after = await digest(root);
    for (const f of Object.keys(FILES)) expect(after[f], f).toEqual(before[f]);
  });

  it('an answer that is none of the allowed ones, or an override against it, is a clear error; nothing changes', async () => {
    const root = workspace(FILES);
    const hh = await harnesses.open({ root, caps: { elicitation: {} }, elicit: [answer('both, maybe'), answer('AGENTS.md')] });
    const question = sc(await hh.call('onboarding_propose', { narrate: false })).sharedRules.question;
    await hh.call('question_ask', { question });
    const before = await digest(root);
    const bad = await hh.call('onboarding_propose', { narrate: false });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('"both, maybe" saved in .copilot-state/questions/');
    expect(textOf(bad)).toContain('"AGENTS.md", "Copilot", "keep"');
    expect(await digest(root)).toEqual(before);

    await hh.call('question_ask', { question });
    const conflict = await hh.call('onboarding_propose', { narrate: false, overrides: [{ sharedRules: 'copilot' }] });
    expect(conflict.isError).toBe(true);
    expect(textOf(conflict)).toMatch(/answered "AGENTS\.md".*choose different files/);
    const ok = await hh.call('onboarding_propose', { narrate: false });
    expect(ok.isError, textOf(ok)).toBeFalsy();
    expect(sc(ok).sharedRules.choice).toBe('AGENTS.md');
    const plan = JSON.parse(await fsp.readFile(path.join(root, sc(ok).planFile), 'utf8'));
    expect(plan.operations.map((o: any) => o.path)).toEqual(['CLAUDE.md']);
    expect(plan.operations[0].content.split('\n')).toContain('@AGENTS.md');
  });
});
