/**
 * Issue 21: headed content of other agents' always-on files, split with the same engine as
 * Copilot's own file, through the SDK client and the real gates. CLAUDE.md (read by github.com
 * when there is no AGENTS.md) gives its path-specific sections to scoped files and imports each
 * one back (`@./…`), so Claude Code still reads every rule; `.cursorrules` (no Copilot surface
 * reads it) has its path-specific section copied and stays as it is. Migrate writes and verifies
 * it all; rollback restores every source byte for byte. An always-on Cursor rule is appended to the
 * repository-wide file.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { YES_APPROVE, YES_MIGRATE, YES_ROLLBACK, harnessesPerTest, textOf } from '../helpers/harness.js';
import { digest } from '../helpers/workspace.js';
import { workspaceWith } from '../helpers/files.js';

const harnesses = harnessesPerTest();
const sc = (r: { structuredContent?: unknown }) => r.structuredContent as Record<string, any>;

const workspace = (files: Record<string, string | Uint8Array>): string => workspaceWith('co-split-', files);

const PY = '## Python\r\n\r\n- Use type hints on every public function in the scripts folder.\r\n\r\n';
const DOCKER = '## Docker\r\n\r\n- Pin every base image in the Dockerfile to a digest.\r\n\r\n';
const CLAUDE = `# Project notes\r\n\r\n- Keep commits small and focused on one change.\r\n\r\n${PY}${DOCKER}## Style\r\n\r\n- Be concise.\r\n`;
const CURSORRULES = '# Cursor rules\n\n## Python\n\n- Format Python with ruff before committing.\n';

describe('splitting other agents\' headed files', () => {
  it('CLAUDE.md moves its path-specific sections and imports them; .cursorrules is copied; migrate, then rollback restores every source', async () => {
    const root = workspace({
      '.github/copilot-instructions.md': '# Repo\n\nGeneral rules for everyone.\n',
      'CLAUDE.md': CLAUDE,
      '.cursorrules': CURSORRULES,
      '.cursor/rules/lang.mdc': '---\nalwaysApply: true\n---\n- Answer in English, always, in every file.\n',
      'scripts/a.py': 'print(1)\n',
      Dockerfile: 'FROM node:20\n',
    });
    const hh = await harnesses.open({ root, caps: { elicitation: {} }, elicit: [YES_APPROVE, YES_MIGRATE, YES_ROLLBACK] });
    const before = await digest(root);

    const a = await hh.call('onboarding_analyze', { narrate: false });
    expect(sc(a).agentPlan.map((o: any) => [o.path, o.action])).toEqual([
      ['.cursor/rules/lang.mdc', 'append'],
      ['.cursorrules', 'split'],
      ['CLAUDE.md', 'split'],
    ]);

    const p = await hh.call('onboarding_propose', { narrate: false });
    expect(p.isError, textOf(p)).toBeFalsy();
    const plan = JSON.parse(await fsp.readFile(path.join(root, sc(p).planFile), 'utf8'));
    const splits = plan.agents.splits as Array<{ source: string; mode: string; outputs: Array<{ path: string; sections: string[] }>; pointers: string[] }>;
    expect(splits.map((s) => [s.source, s.mode, s.outputs.map((o) => o.sections.join('+'))])).toEqual([
      ['.cursorrules', 'copy', ['Python']],
      ['CLAUDE.md', 'move', ['Docker', 'Python']],
    ]);
    expect(plan.lossless.ok).toBe(true);
    expect(plan.lossless.coveredSources).toContain('CLAUDE.md');
    expect(plan.operations.map((o: any) => `${o.op} ${o.path}`)).not.toContain('modify .cursorrules');

    // CLAUDE.md after the plan: the kept text byte for byte, an import (CRLF, like the file) where each moved section was.
    const claude = splits.find((s) => s.source === 'CLAUDE.md')!;
    const out = (name: string) => claude.outputs.find((o) => o.sections[0] === name)!.path;
    const expected = `# Project notes\r\n\r\n- Keep commits small and focused on one change.\r\n\r\n@./${out('Python')}\r\n\r\n@./${out('Docker')}\r\n\r\n## Style\r\n\r\n- Be concise.\r\n`;
    expect(plan.operations.find((o: any) => o.path === 'CLAUDE.md').content).toBe(expected);

    expect(sc(await hh.call('onboarding_approve', {})).approved).toBe(true);
    // The person approving sees that CLAUDE.md changes and how Claude Code keeps reading what moved.
    const form = (hh.shown[0] as { message: string }).message;
    expect(form).toContain(`- Modify \`CLAUDE.md\` (${Buffer.byteLength(CLAUDE)} → ${Buffer.byteLength(expected)} bytes): its 2 path-specific part(s) move to the files below, and it imports each (\`@./${out('Python')}\`, \`@./${out('Docker')}\`) so its agent still reads them.`);
    expect(form).toContain('sections: CLAUDE.md: Python');
    const m = await hh.call('onboarding_migrate', {});
    expect(m.isError, textOf(m)).toBeFalsy();
    expect(sc(m)).toMatchObject({ migrated: true, verified: true });
    expect(await fsp.readFile(path.join(root, 'CLAUDE.md'), 'utf8')).toBe(expected);
    // What Claude Code reads through the import is the section, byte for byte.
    expect((await fsp.readFile(path.join(root, out('Python')), 'utf8')).endsWith(`---\r\n${PY}`)).toBe(true);
    expect((await fsp.readFile(path.join(root, out('Docker')), 'utf8')).endsWith(`---\r\n${DOCKER}`)).toBe(true);
    expect(await fsp.readFile(path.join(root, '.cursorrules'), 'utf8')).toBe(CURSORRULES);
    // The always-on Cursor rule is appended to the repository-wide file, verbatim.
    expect(await fsp.readFile(path.join(root, '.github/copilot-instructions.md'), 'utf8')).toBe('# Repo\n\nGeneral rules for everyone.\n\n- Answer in English, always, in every file.\n');

    // Run again after the migration: nothing is copied or moved twice.
    const again = await hh.call('onboarding_propose', { narrate: false });
    expect(again.isError, textOf(again)).toBeFalsy();
    expect(sc(again).operations).toEqual([]);
    expect(sc(again).agents.kept.find((k: any) => k.path === '.cursor/rules/lang.mdc').reason).toContain('already in .github/copilot-instructions.md');

    const r = await hh.call('onboarding_rollback', {});
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(await digest(root)).toEqual(before);
  });

  it('CLAUDE.md is not split when a root AGENTS.md is what Copilot attaches; the reason is given', async () => {
    const root = workspace({ 'AGENTS.md': '# Agents\n\n- Use pnpm.\n', 'CLAUDE.md': CLAUDE, 'scripts/a.py': '' });
    const hh = await harnesses.open({ root, caps: { elicitation: {} }, elicit: [] });
    const p = await hh.call('onboarding_propose', { narrate: false });
    expect(p.isError, textOf(p)).toBeFalsy();
    expect(sc(p).operations).toEqual([]);
    expect(sc(p).agents.kept.find((k: any) => k.path === 'CLAUDE.md').reason).toContain('Copilot attaches the root AGENTS.md instead');
  });
});

describe('one source of truth, chosen by the person', () => {
  it('{file: CLAUDE.md, pointer: @AGENTS.md}: CLAUDE.md drops its copies of AGENTS.md rules and imports AGENTS.md; migrate, then rollback', async () => {
    const AGENTS = '# Agents\n\n- Use pnpm for every install in this repository.\n\n- Run the tests with pnpm test before every commit.\n';
    const CLAUDE_MD = '# Claude\n\n- Use pnpm for every install in this repository.\n\n- Prefer small, focused pull requests over large ones.\n\n- Run the tests with pnpm test before every commit.\n';
    const root = workspace({ 'AGENTS.md': AGENTS, 'CLAUDE.md': CLAUDE_MD });
    const hh = await harnesses.open({ root, caps: { elicitation: {} }, elicit: [YES_APPROVE, YES_MIGRATE, YES_ROLLBACK] });
    const before = await digest(root);
    const p = await hh.call('onboarding_propose', { narrate: false, overrides: [{ file: 'CLAUDE.md', pointer: '@AGENTS.md' }] });
    expect(p.isError, textOf(p)).toBeFalsy();
    const plan = JSON.parse(await fsp.readFile(path.join(root, sc(p).planFile), 'utf8'));
    const expected = '# Claude\n\n@AGENTS.md\n\n- Prefer small, focused pull requests over large ones.\n\n';
    expect(plan.operations.map((o: any) => [o.op, o.path])).toEqual([['modify', 'CLAUDE.md']]);
    expect(plan.operations[0].content).toBe(expected);
    expect(plan.agents.pointers[0].copies).toHaveLength(2);
    expect(plan.overrides).toEqual([{ file: 'CLAUDE.md', pointer: '@AGENTS.md' }]);
    expect(plan.lossless.ok).toBe(true);

    expect(sc(await hh.call('onboarding_approve', {})).approved).toBe(true);
    const m = await hh.call('onboarding_migrate', {});
    expect(m.isError, textOf(m)).toBeFalsy();
    expect(sc(m)).toMatchObject({ migrated: true, verified: true });
    expect(await fsp.readFile(path.join(root, 'CLAUDE.md'), 'utf8')).toBe(expected);
    expect(await fsp.readFile(path.join(root, 'AGENTS.md'), 'utf8')).toBe(AGENTS);
    const r = await hh.call('onboarding_rollback', {});
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(await digest(root)).toEqual(before);
  });
});
