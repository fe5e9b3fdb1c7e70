/**
 * readSnapshot on real temp workspaces: which sources are read, in which order, and which
 * are refused (symlinks out of the workspace, `.github` symlinked out, oversized, invalid
 * UTF-8, NUL bytes, FIFOs), plus the file walk (skipped folders, symlinked folders, cap).
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSnapshot, listWorkspaceFiles } from '../../server/src/io/snapshot.js';
import { put, tempDirsPerTest } from '../helpers/files.js';
import { sha256Hex } from '../../server/src/core/canonical.js';

const temp = tempDirsPerTest('co-snap-');

const REPO = '.github/copilot-instructions.md';

describe('readSnapshot: sources', () => {
  it('reads the repo file, path-specific files (nested too) and other agents, sorted', async () => {
    const root = temp();
    put(root, REPO, '# Repo\n');
    put(root, '.github/instructions/z.instructions.md', '---\napplyTo: "**/*.ts"\n---\nz\n');
    put(root, '.github/instructions/a.instructions.md', 'a\n');
    put(root, '.github/instructions/sub/b.instructions.md', 'b\n');
    put(root, '.github/instructions/notes.md', 'not an instructions file\n');
    put(root, 'CLAUDE.md', 'claude\n');
    put(root, 'AGENTS.md', 'agents\n');
    put(root, 'GEMINI.md', 'gemini\n');
    put(root, '.cursorrules', 'cursor\n');
    put(root, '.cursor/rules/style.mdc', 'mdc\n');
    put(root, '.cursor/rules/readme.txt', 'not mdc\n');
    put(root, '.windsurfrules', 'windsurf\n');
    put(root, '.clinerules/01-style.md', 'cline\n');
    put(root, 'docs/AGENTS.md', 'nested\n');
    const snap = await readSnapshot(root);
    expect(snap.refused).toEqual([]);
    expect(snap.sources.map((s) => [s.kind, s.path])).toEqual([
      ['copilot-repo', REPO],
      ['copilot-path', '.github/instructions/a.instructions.md'],
      ['copilot-path', '.github/instructions/sub/b.instructions.md'],
      ['copilot-path', '.github/instructions/z.instructions.md'],
      ['other-agent', '.clinerules/01-style.md'],
      ['other-agent', '.cursor/rules/style.mdc'],
      ['other-agent', '.cursorrules'],
      ['other-agent', '.windsurfrules'],
      ['other-agent', 'AGENTS.md'],
      ['other-agent', 'CLAUDE.md'],
      ['other-agent', 'GEMINI.md'],
      ['other-agent', 'docs/AGENTS.md'],
    ]);
    const repo = snap.sources[0]!;
    expect(Buffer.from(repo.bytes).toString()).toBe('# Repo\n');
    expect(repo.size).toBe(7);
    expect(repo.sha256).toBe(sha256Hex('# Repo\n'));
  });

  it('an empty workspace has no sources', async () => {
    const snap = await readSnapshot(temp());
    expect(snap).toEqual({ sources: [], refused: [], files: [], filesTruncated: false, taken: [] });
  });

  it('keeps BOM, CRLF and CJK bytes exactly', async () => {
    const root = temp();
    const bytes = Buffer.from('\uFEFF# 日本語\r\n本文\r\n', 'utf8');
    put(root, REPO, bytes);
    const snap = await readSnapshot(root);
    expect(Buffer.from(snap.sources[0]!.bytes).equals(bytes)).toBe(true);
  });

  it('.clinerules may be a plain file', async () => {
    const root = temp();
    put(root, '.clinerules', 'x\n');
    expect((await readSnapshot(root)).sources.map((s) => s.path)).toEqual(['.clinerules']);
  });
});

describe('readSnapshot: refusals', () => {
  it('a symlink leading outside the workspace is refused, one inside is read', async () => {
    const outside = temp('co-outside-');
    put(outside, 'secret.md', '# secret\n');
    const root = temp();
    put(root, 'docs/real.md', '# inside\n');
    mkdirSync(path.join(root, '.github/instructions'), { recursive: true });
    symlinkSync(path.join(outside, 'secret.md'), path.join(root, REPO));
    symlinkSync(path.join(root, 'docs/real.md'), path.join(root, '.github/instructions/in.instructions.md'));
    // a relative link that climbs out
    symlinkSync(path.relative(path.join(root, '.github/instructions'), path.join(outside, 'secret.md')), path.join(root, '.github/instructions/out.instructions.md'));
    symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'CLAUDE.md'));
    const snap = await readSnapshot(root);
    expect(snap.sources.map((s) => s.path)).toEqual(['.github/instructions/in.instructions.md']);
    expect(Buffer.from(snap.sources[0]!.bytes).toString()).toBe('# inside\n');
    expect(snap.refused).toEqual([
      { path: REPO, kind: 'copilot-repo', reason: 'it is a symlink that leads outside the workspace' },
      { path: '.github/instructions/out.instructions.md', kind: 'copilot-path', reason: 'it is a symlink that leads outside the workspace' },
      { path: 'CLAUDE.md', kind: 'other-agent', reason: 'it is a symlink that leads outside the workspace' },
    ]);
  });

  it('a .github folder symlinked out of the workspace is refused, nothing read through it', async () => {
    const outside = temp('co-outside-');
    put(outside, 'copilot-instructions.md', '# elsewhere\n');
    put(outside, 'instructions/x.instructions.md', 'x\n');
    const root = temp();
    symlinkSync(outside, path.join(root, '.github'));
    const snap = await readSnapshot(root);
    expect(snap.sources).toEqual([]);
    expect(snap.refused).toEqual([
      { path: REPO, kind: 'copilot-repo', reason: '.github is a symlink that leads outside the workspace' },
      { path: '.github/instructions', kind: 'copilot-path', reason: '.github is a symlink that leads outside the workspace' },
    ]);
    // the walk does not follow the symlinked folder either
    expect(snap.files).toEqual(['.github']);
  });

  it('a .github folder symlinked inside the workspace is fine', async () => {
    const root = temp();
    put(root, 'config/github/copilot-instructions.md', '# ok\n');
    symlinkSync(path.join(root, 'config/github'), path.join(root, '.github'));
    const snap = await readSnapshot(root);
    expect(snap.refused).toEqual([]);
    expect(snap.sources.map((s) => s.path)).toEqual([REPO]);
  });

  it('oversized, invalid UTF-8 and NUL bytes are refused with a reason', async () => {
    const root = temp();
    put(root, REPO, 'x'.repeat(2001));
    put(root, '.github/instructions/bad-utf8.instructions.md', Buffer.from([0x23, 0x20, 0xc3, 0x28, 0x0a]));
    put(root, '.github/instructions/nul.instructions.md', Buffer.from('# a\0b\n'));
    put(root, '.github/instructions/ok.instructions.md', 'fine: é 日本\n');
    put(root, 'AGENTS.md', Buffer.from([0xff, 0xfe, 0x41, 0x00])); // UTF-16 has NULs
    const snap = await readSnapshot(root, { maxSourceBytes: 2000 });
    expect(snap.sources.map((s) => s.path)).toEqual(['.github/instructions/ok.instructions.md']);
    expect(snap.refused.map((r) => [r.path, r.reason])).toEqual([
      [REPO, 'it is 2,001 bytes, over the 2,000-byte limit'],
      ['.github/instructions/bad-utf8.instructions.md', 'it is not valid UTF-8'],
      ['.github/instructions/nul.instructions.md', 'it looks binary (NUL byte at offset 3)'],
      ['AGENTS.md', 'it looks binary (NUL byte at offset 3)'],
    ]);
    // exactly at the cap is fine
    put(root, REPO, 'x'.repeat(2000));
    expect((await readSnapshot(root, { maxSourceBytes: 2000 })).sources[0]!.path).toBe(REPO);
  });

  it('directories, dangling symlinks and FIFOs are refused without hanging', async () => {
    const root = temp();
    mkdirSync(path.join(root, REPO), { recursive: true });
    symlinkSync(path.join(root, 'nowhere.md'), path.join(root, 'CLAUDE.md'));
    let fifo = false;
    try {
      execFileSync('mkfifo', [path.join(root, 'AGENTS.md')]);
      fifo = true;
    } catch {
      /* no mkfifo here */
    }
    const snap = await readSnapshot(root);
    expect(snap.sources).toEqual([]);
    expect(snap.refused.map((r) => [r.path, r.reason])).toEqual([
      [REPO, 'it is not a regular file'],
      ...(fifo ? [['AGENTS.md', 'it is not a regular file']] : []),
      ['CLAUDE.md', 'it is a symlink to nothing (dangling)'],
    ]);
  });
});

describe('readSnapshot: workspace files', () => {
  it('lists files sorted, skipping .git, node_modules, .copilot-state and symlinked folders', async () => {
    const root = temp();
    put(root, 'src/orders.ts', '');
    put(root, 'src/orders.test.ts', '');
    put(root, 'web/App.tsx', '');
    put(root, 'package.json', '{}');
    put(root, '.github/workflows/ci.yml', '');
    put(root, '.git/HEAD', '');
    put(root, 'node_modules/x/index.js', '');
    put(root, 'pkg/node_modules/y.js', '');
    put(root, '.copilot-state/onboarding.json', '{}');
    put(root, 'Z.md', '');
    symlinkSync(path.join(root, 'src'), path.join(root, 'linked-src'));
    symlinkSync(path.join(root, 'Z.md'), path.join(root, 'z-link.md'));
    const snap = await readSnapshot(root);
    expect(snap.files).toEqual(['.github/workflows/ci.yml', 'Z.md', 'linked-src', 'package.json', 'src/orders.test.ts', 'src/orders.ts', 'web/App.tsx', 'z-link.md']);
    expect(snap.filesTruncated).toBe(false);
  });

  it('stops at maxFiles, shallow files first, the same way every time', async () => {
    const root = temp();
    for (let i = 0; i < 5; i++) put(root, `f${i}.txt`, '');
    for (let i = 0; i < 5; i++) put(root, `a/deep/g${i}.txt`, '');
    put(root, 'a/h.txt', '');
    const one = await listWorkspaceFiles(root, 7);
    expect(one.truncated).toBe(true);
    expect(one.files).toEqual(['a/h.txt', 'f0.txt', 'f1.txt', 'f2.txt', 'f3.txt', 'f4.txt', 'a/deep/g0.txt'].sort());
    expect(await listWorkspaceFiles(root, 7)).toEqual(one);
    const snap = await readSnapshot(root, { maxFiles: 3 });
    expect(snap.files).toEqual(['f0.txt', 'f1.txt', 'f2.txt']);
    expect(snap.filesTruncated).toBe(true);
    expect((await readSnapshot(root, { maxFiles: 11 })).filesTruncated).toBe(false);
  });

  it('walks 5,000 files quickly', async () => {
    // (about 100 ms per 20,000 files on a busy 2-core machine; creating them is the slow part here)
    const root = temp();
    for (let d = 0; d < 50; d++) {
      mkdirSync(path.join(root, `pkg${d}/src`), { recursive: true });
      for (let f = 0; f < 100; f++) writeFileSync(path.join(root, `pkg${d}/src/f${f}.ts`), '');
    }
    const { files, truncated } = await listWorkspaceFiles(root, 200_000);
    expect(files).toHaveLength(5_000);
    expect(truncated).toBe(false);
  });
});
