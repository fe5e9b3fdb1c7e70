/**
 * readSnapshot finds every agent's instruction files (issue 21): nested AGENTS.md, CLAUDE.md and
 * GEMINI.md, `.claude/CLAUDE.md`, `.cursor/rules/**\/*.mdc` at any depth, `.windsurf/rules/*.md`;
 * and names what it will not read (symlinked rule folders, rule folders linked out of the
 * workspace, binary and huge rule files) instead of skipping it silently.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSnapshot } from '../../server/src/io/snapshot.js';

const dirs: string[] = [];
function temp(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'co-agents-snap-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});
function put(root: string, rel: string, data: string | Uint8Array): void {
  const abs = path.join(root, rel);
  mkdirSync(path.dirname(abs), { recursive: true });
  writeFileSync(abs, data);
}

describe('readSnapshot: every agent', () => {
  it('finds nested agent files, .claude/CLAUDE.md, Cursor rules at any depth and Windsurf rules', async () => {
    const root = temp();
    put(root, 'AGENTS.md', 'root\n');
    put(root, 'packages/api/AGENTS.md', 'api\n');
    put(root, '.claude/CLAUDE.md', 'claude\n');
    put(root, 'web/GEMINI.md', 'gemini\n');
    put(root, '.cursor/rules/a.mdc', 'a\n');
    put(root, '.cursor/rules/frontend/b.mdc', 'b\n');
    put(root, '.cursor/rules/frontend/notes.md', 'not a rule\n');
    put(root, '.windsurf/rules/style.md', 'w\n');
    put(root, '.windsurf/rules/deep/ignored.md', 'windsurf reads one level\n');
    put(root, 'node_modules/pkg/AGENTS.md', 'never\n');
    const snap = await readSnapshot(root);
    expect(snap.refused).toEqual([]);
    expect(snap.sources.map((s) => s.path)).toEqual([
      '.claude/CLAUDE.md',
      '.cursor/rules/a.mdc',
      '.cursor/rules/frontend/b.mdc',
      '.windsurf/rules/style.md',
      'AGENTS.md',
      'packages/api/AGENTS.md',
      'web/GEMINI.md',
    ]);
  });

  it('refuses by name a symlinked folder inside .cursor/rules, and rule files of a rules folder linked out of the workspace', async () => {
    const root = temp();
    const outside = temp();
    put(outside, 'shared/x.mdc', 'outside\n');
    put(root, 'rules-src/y.mdc', 'inside\n');
    mkdirSync(path.join(root, '.cursor/rules'), { recursive: true });
    symlinkSync(path.join(root, 'rules-src'), path.join(root, '.cursor/rules/linked'));
    mkdirSync(path.join(root, '.windsurf'), { recursive: true });
    symlinkSync(path.join(outside, 'shared'), path.join(root, '.windsurf/rules'));
    put(outside, 'shared/z.md', 'outside windsurf\n');
    const snap = await readSnapshot(root);
    expect(snap.sources.map((s) => s.path)).toEqual([]);
    expect(snap.refused).toEqual([
      { path: '.cursor/rules/linked', kind: 'other-agent', reason: 'it is a symlinked folder of rules, which is not followed' },
      { path: '.windsurf/rules/z.md', kind: 'other-agent', reason: '.windsurf/rules is a symlink that leads outside the workspace' },
    ]);
  });

  it('refuses binary and oversized rule files with the reason', async () => {
    const root = temp();
    put(root, '.cursor/rules/bin.mdc', Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0x01]));
    put(root, '.windsurf/rules/huge.md', 'x'.repeat(2048));
    const snap = await readSnapshot(root, { maxSourceBytes: 1024 });
    expect(snap.sources).toEqual([]);
    expect(snap.refused.map((r) => [r.path, r.reason])).toEqual([
      ['.cursor/rules/bin.mdc', 'it looks binary (NUL byte at offset 4)'],
      ['.windsurf/rules/huge.md', 'it is 2,048 bytes, over the 1,024-byte limit'],
    ]);
  });
});
