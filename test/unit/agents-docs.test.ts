/**
 * docs/agents.md (which surface reads each format) and docs/loads.md (what the per-file figure
 * attaches) state the same facts as core/agents/formats.ts and core/loads.ts. They once
 * disagreed about Copilot code review reading AGENTS.md; these tests fail when either page or
 * either module says otherwise.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type AgentFormat, FORMATS, type Surface, readByDefault } from '../../server/src/core/agents/formats.js';
import { charsPerFile, loadRules, SURFACES as LOAD_SURFACES, type Surface as LoadSurface } from '../../server/src/core/loads.js';

function table(doc: string, firstHeader: string): string[][] {
  const lines = readFileSync(new URL(`../../docs/${doc}`, import.meta.url), 'utf8').split('\n');
  const start = lines.findIndex((l) => l.startsWith(`| ${firstHeader} |`));
  expect(start, `${doc} has a table headed "${firstHeader}"`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (let i = start; i < lines.length && lines[i]!.startsWith('|'); i++) {
    if (i === start + 1) continue; // the |---| line
    rows.push(lines[i]!.slice(1, -1).split(' | ').map((c) => c.trim().replace(/^\|\s*/, '')));
  }
  return rows;
}

const COLUMN: Record<string, Surface[]> = {
  'github.com chat': ['github-chat'],
  'cloud agent': ['cloud-agent'],
  'code review (github.com)': ['code-review'],
  'VS Code chat': ['vscode-chat'],
  'VS Code review': ['vscode-review'],
  'Visual Studio chat / review': ['vs-chat', 'vs-review'],
  'JetBrains chat / review': ['jetbrains-chat', 'jetbrains-review'],
  'Eclipse chat': ['eclipse-chat'],
  'Xcode chat / review': ['xcode-chat', 'xcode-review'],
  CLI: ['cli'],
};

describe('docs/agents.md agrees with core/agents/formats.ts', () => {
  it('every cell of the surface table says "yes" exactly where the format is read by default', () => {
    const [header, ...rows] = table('agents.md', 'format');
    const formats = new Set<AgentFormat>();
    for (const row of rows) {
      const names = [...row[0]!.matchAll(/`([a-z-]+)`/g)].map((m) => m[1] as AgentFormat);
      for (const format of names) {
        expect(FORMATS[format], `${format} is a format`).toBeDefined();
        formats.add(format);
        const read = new Set(readByDefault(format));
        if (row[1] === 'no Copilot surface') {
          expect([...read], `${format}: no Copilot surface`).toEqual([]);
          continue;
        }
        header!.forEach((col, i) => {
          const surfaces = COLUMN[col];
          if (!surfaces) return;
          const cells = surfaces.length > 1 && row[i]!.includes(' / ') ? row[i]!.split(' / ') : surfaces.map(() => row[i]!);
          surfaces.forEach((s, k) => expect(cells[k]!.startsWith('yes'), `${format} on ${s}: "${cells[k]}"`).toBe(read.has(s)));
        });
      }
    }
    expect([...formats].sort()).toEqual(Object.keys(FORMATS).sort());
  });
});

describe('docs/loads.md agrees with core/loads.ts', () => {
  const COL: Record<string, LoadSurface> = {
    'Copilot code review (github.com)': 'code-review',
    'Copilot cloud agent (github.com)': 'cloud-agent',
    'Copilot Chat in VS Code': 'vscode-chat',
  };
  it('AGENTS.md and CLAUDE.md/GEMINI.md are counted on exactly the surfaces whose cell does not say "not counted"', () => {
    const [header, ...rows] = table('loads.md', 'instruction file');
    const row = (prefix: string) => rows.find((r) => r[0]!.startsWith(prefix))!;
    const cases: Array<[string, string]> = [
      ['`AGENTS.md`', 'AGENTS.md'],
      ['`CLAUDE.md`, `GEMINI.md`', 'CLAUDE.md'],
      ['`CLAUDE.md`, `GEMINI.md`', 'GEMINI.md'],
    ];
    for (const [prefix, path] of cases) {
      const r = row(prefix);
      expect(r, `loads.md has a row for ${path}`).toBeDefined();
      for (const [col, surface] of Object.entries(COL)) {
        const cell = r[header!.indexOf(col)]!;
        const counted = charsPerFile(loadRules([{ path, text: 'x'.repeat(10) }]), ['a.ts'], surface)[0]! > 0;
        expect(!cell.startsWith('not counted'), `${path} on ${surface}: "${cell}"`).toBe(counted);
      }
    }
    expect(LOAD_SURFACES.every((s) => Object.values(COL).includes(s))).toBe(true);
  });

  it('code review reads AGENTS.md on both pages and in both modules', () => {
    expect(readByDefault('agents-md')).toContain('code-review');
    expect(charsPerFile(loadRules([{ path: 'AGENTS.md', text: 'Use pnpm.' }]), ['a.ts'], 'code-review')[0]).toBe(9);
  });
});
