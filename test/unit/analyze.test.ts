import { readFileSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyze, countChars, normalizeTitle } from '../../server/src/core/analyze.js';
import { findContradictions } from '../../server/src/core/contradictions.js';
import { sha256Hex } from '../../server/src/core/canonical.js';
import type { Problem, Snapshot, SourceFile, SourceKind } from '../../server/src/core/types.js';
import { EXAMPLE_MONOLITH } from '../helpers/example-md.js';
import { CORPUS_ENV_DIR, corpusFiles, corpusPath } from '../helpers/corpus.js';
import { runs } from '../helpers/runs.js';


const REPO = '.github/copilot-instructions.md';

function src(p: string, kind: SourceKind, content: string | Uint8Array): SourceFile {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  return { path: p, kind, bytes, size: bytes.length, sha256: sha256Hex(bytes) };
}

function snap(sources: SourceFile[], extra: Partial<Snapshot> = {}): Snapshot {
  return { sources, refused: [], files: [], filesTruncated: false, ...extra };
}

const codes = (ps: Problem[]) => ps.map((p) => p.code);


/** The repository of design/EXAMPLE.md, as a snapshot. */
function exampleSnapshot(): Snapshot {
  return snap([src(REPO, 'copilot-repo', EXAMPLE_MONOLITH)], {
    files: ['.github/copilot-instructions.md', '.github/workflows/ci.yml', 'package.json', 'scripts/export.py', 'src/orders.test.ts', 'src/orders.ts', 'web/App.tsx'],
  });
}

describe('analyze: EXAMPLE.md', () => {
  it('is structured: preamble + six sections, no problems, the fence line is not a heading', () => {
    const a = analyze(exampleSnapshot());
    expect(a.pattern).toBe('structured');
    expect(a.problems).toEqual([]);
    expect(a.sections.map((s) => [s.id, s.title, s.kind])).toEqual([
      ['s01-preamble', 'Preamble', 'preamble'],
      ['s02-typescript', 'TypeScript', 'heading'],
      ['s03-testing', 'Testing', 'heading'],
      ['s04-react', 'React', 'heading'],
      ['s05-python-scripts', 'Python scripts', 'heading'],
      ['s06-ci', 'CI', 'heading'],
      ['s07-communication', 'Communication', 'heading'],
    ]);
    expect(a.sources).toEqual([
      { path: REPO, kind: 'copilot-repo', size: EXAMPLE_MONOLITH.length, sha256: sha256Hex(EXAMPLE_MONOLITH), lines: 34, chars: EXAMPLE_MONOLITH.length },
    ]);
    expect(a.existingInstructions).toEqual([]);
    expect(a.otherAgentFiles).toEqual([]);
  });

  it('is migrated once a path-specific file exists, with or without the repo file', () => {
    const ts = src('.github/instructions/typescript.instructions.md', 'copilot-path', '---\napplyTo: "**/*.ts,**/*.tsx"\ndescription: TypeScript\n---\n## TypeScript\n');
    const both = analyze(snap([...exampleSnapshot().sources, ts]));
    expect(both.pattern).toBe('migrated');
    expect(both.existingInstructions).toEqual([{ path: ts.path, applyTo: '**/*.ts,**/*.tsx', applyToShape: 'quoted-string', description: 'TypeScript' }]);
    expect(both.sections.every((s) => s.sourcePath === REPO)).toBe(true);
    expect(analyze(snap([ts])).pattern).toBe('migrated');
    expect(analyze(snap([ts])).sections).toEqual([]);
  });
});

describe('analyze: pattern rules', () => {
  it('clean: nothing to split', () => {
    expect(analyze(snap([])).pattern).toBe('clean');
    expect(analyze(snap([src(REPO, 'copilot-repo', '')])).pattern).toBe('clean');
    expect(analyze(snap([src(REPO, 'copilot-repo', '\n\n  \n')])).pattern).toBe('clean');
    expect(analyze(snap([src(REPO, 'copilot-repo', '# Rules\n\nBe brief.\n\n## Style\n\nUse ruff.\n')])).pattern).toBe('clean');
  });

  it('unstructured: no heading at all; sections are proposed topic groups covering every byte', () => {
    const text = [
      '- Write all Python code with type hints and format it with ruff; pytest for tests.',
      '',
      '- React components are function components; hooks at the top of the component.',
      '',
      '- GitHub Actions workflows pin actions by commit SHA.',
      '',
      '- Be concise.',
      '',
    ].join('\n');
    const bytes = new TextEncoder().encode(text);
    const a = analyze(snap([src(REPO, 'copilot-repo', bytes)]));
    expect(a.pattern).toBe('unstructured');
    expect(a.sections.length).toBeGreaterThan(0);
    const covered = a.sections.flatMap((s) => s.ranges).sort((x, y) => x.start - y.start);
    let pos = 0;
    for (const r of covered) {
      expect(r.start).toBe(pos);
      pos = r.end;
    }
    expect(pos).toBe(bytes.length);
  });

  it('structured: several sections', () => {
    expect(analyze(snap([src(REPO, 'copilot-repo', '## A\na\n## B\nb\n## C\nc\n')])).pattern).toBe('structured');
  });

  it('messy: sibling duplicates at the split level, contradictions, bad level skips, a refused repo file', () => {
    expect(analyze(snap([src(REPO, 'copilot-repo', '## Style\na\n## Tests\nb\n## Style\nc\n')])).pattern).toBe('messy');
    expect(analyze(snap([src(REPO, 'copilot-repo', '## Style\n- Use tabs for indentation.\n## More\n- Indent with 2 spaces.\n')])).pattern).toBe('messy');
    expect(analyze(snap([src(REPO, 'copilot-repo', '# A\n#### B\ntext\n')])).pattern).toBe('messy');
    expect(analyze(snap([src(REPO, 'copilot-repo', '## A\n#### B\n## C\n#### D\n## E\n#### F\n')])).pattern).toBe('messy');
    expect(analyze(snap([src(REPO, 'copilot-repo', '## A\n#### B\nx\n## C\ny\n')])).pattern).toBe('clean'); // one 2-level jump is fine
    expect(analyze(snap([], { refused: [{ path: REPO, kind: 'copilot-repo', reason: 'it looks binary (NUL byte at offset 3)' }] })).pattern).toBe('messy');
  });
});

describe('analyze: problems with line numbers', () => {
  it('DUPLICATE_HEADING: same normalised title, same level, same parent', () => {
    const a = analyze(snap([src(REPO, 'copilot-repo', '## Testing\na\n## Style\nb\n## **testing**:\nc\n### Examples\nx\n### Examples\ny\n## Other\n### Examples\nz\n')]));
    const dups = a.problems.filter((p) => p.code === 'DUPLICATE_HEADING');
    expect(dups.map((p) => [p.severity, p.lines])).toEqual([
      ['warning', [1, 5]],
      ['info', [7, 9]],
    ]);
    expect(normalizeTitle(' **Testing** : ')).toBe('testing');
  });

  it('EMPTY_SECTION: only white space under a heading and no subsection', () => {
    const a = analyze(snap([src(REPO, 'copilot-repo', '## A\n\n  \n## B\n### B.1\ntext\n## C\n')]));
    expect(a.problems.filter((p) => p.code === 'EMPTY_SECTION').map((p) => p.lines)).toEqual([[1], [7]]);
  });

  it('no fixed length limit: a long repository-wide file is no problem by itself; characters are code points', () => {
    const cjk = `# 説明\n${'日本語のテキスト。\n'.repeat(300)}`; // 3,005 chars, ~8.4 KB
    expect(countChars(cjk)).toBe(3005);
    const long = `# Rules\n${'x'.repeat(99)}\n`.repeat(410);
    const a = analyze(snap([src(REPO, 'copilot-repo', long)]));
    expect(codes(a.problems)).not.toContain('REPO_WIDE_TOO_LONG');
    expect(a.sources[0]!.chars).toBe(44_280);
    expect(countChars('😀a')).toBe(2);
  });

  it('applyTo shapes of existing files: alias-like, list, missing, unquoted, invalid YAML, several quoted strings', () => {
    const files = [
      src('.github/instructions/alias.instructions.md', 'copilot-path', '---\ndescription: x\napplyTo: **/*.ts\n---\nbody\n'),
      src('.github/instructions/list.instructions.md', 'copilot-path', '---\napplyTo:\n  - "**/*.py"\n  - "**/*.pyi"\n---\nbody\n'),
      src('.github/instructions/none.instructions.md', 'copilot-path', '# No front matter\n'),
      src('.github/instructions/plain.instructions.md', 'copilot-path', '---\napplyTo: src/**\n---\n'),
      src('.github/instructions/ok.instructions.md', 'copilot-path', '---\napplyTo: "**/*.md"\n---\n'),
      src('.github/instructions/bad.instructions.md', 'copilot-path', '---\napplyTo: "**"\ndescription: [unclosed\n---\n'),
      src('.github/instructions/strings.instructions.md', 'copilot-path', "---\ndescription: TS\napplyTo: \"**/*.ts\", '**/*.{tsx,mts}' # both\n---\nbody\n"),
    ];
    const a = analyze(snap(files));
    expect(a.pattern).toBe('migrated');
    const got = a.problems.map((p) => [p.code, p.severity, p.path, p.lines]);
    expect(got).toEqual([
      ['MALFORMED_APPLY_TO', 'warning', '.github/instructions/alias.instructions.md', [3]],
      ['INVALID_FRONT_MATTER', 'warning', '.github/instructions/bad.instructions.md', [1]],
      ['MALFORMED_APPLY_TO', 'warning', '.github/instructions/list.instructions.md', [2]],
      ['MISSING_APPLY_TO', 'warning', '.github/instructions/none.instructions.md', [1]],
      ['INVALID_FRONT_MATTER', 'warning', '.github/instructions/strings.instructions.md', [1]],
      ['MALFORMED_APPLY_TO', 'warning', '.github/instructions/strings.instructions.md', [3]],
      ['MALFORMED_APPLY_TO', 'info', '.github/instructions/plain.instructions.md', [2]],
    ]);
    expect(a.problems[5]!.message).toBe(
      'applyTo in .github/instructions/strings.instructions.md is quoted-strings: several quoted strings are not one YAML value, so strict YAML parsers reject the whole front matter (read here as all the globs they name); write applyTo: "glob,glob".',
    );
    expect(a.existingInstructions.map((e) => [e.path, e.applyToShape, e.applyTo])).toEqual([
      ['.github/instructions/alias.instructions.md', 'alias-like', '**/*.ts'],
      ['.github/instructions/list.instructions.md', 'yaml-list', '**/*.py,**/*.pyi'],
      ['.github/instructions/none.instructions.md', 'missing', null],
      ['.github/instructions/plain.instructions.md', 'unquoted-string', 'src/**'],
      ['.github/instructions/ok.instructions.md', 'quoted-string', '**/*.md'],
      ['.github/instructions/bad.instructions.md', 'quoted-string', '**'],
      ['.github/instructions/strings.instructions.md', 'quoted-strings', '**/*.ts,**/*.{tsx,mts}'],
    ]);
    expect(a.existingInstructions.at(-1)!.description).toBe('TS');
  });

  it('SOURCE_REFUSED (error, one per refused source) and OTHER_AGENT_FILES (info, listed)', () => {
    const a = analyze(
      snap([src(REPO, 'copilot-repo', '# A\ntext\n'), src('AGENTS.md', 'other-agent', '# agents\n'), src('CLAUDE.md', 'other-agent', 'claude\n')], {
        refused: [
          { path: '.github/instructions/x.instructions.md', kind: 'copilot-path', reason: 'it is a symlink that leads outside the workspace' },
          { path: 'GEMINI.md', kind: 'other-agent', reason: 'it is not valid UTF-8' },
        ],
      }),
    );
    expect(a.problems.map((p) => [p.code, p.severity, p.path])).toEqual([
      ['SOURCE_REFUSED', 'error', '.github/instructions/x.instructions.md'],
      ['SOURCE_REFUSED', 'error', 'GEMINI.md'],
      ['OTHER_AGENT_FILES', 'info', 'AGENTS.md'],
    ]);
    expect(a.problems[0]!.message).toBe('.github/instructions/x.instructions.md was not read: it is a symlink that leads outside the workspace.');
    expect(a.otherAgentFiles).toEqual(['AGENTS.md', 'CLAUDE.md', 'GEMINI.md']);
    expect(a.problems[2]!.message).toContain('AGENTS.md, CLAUDE.md, GEMINI.md');
    expect(a.pattern).toBe('migrated'); // a refused path-specific file still exists
  });

  it('sources summary: lines and characters for every readable source', () => {
    const a = analyze(snap([src(REPO, 'copilot-repo', '\uFEFF# Ä\r\nb'), src('CLAUDE.md', 'other-agent', 'x\ny\n')]));
    expect(a.sources.map((s) => [s.path, s.lines, s.chars, s.size])).toEqual([
      [REPO, 2, 6, 10],
      ['CLAUDE.md', 2, 4, 4],
    ]);
  });
});

describe('findContradictions', () => {
  const none = () => '';
  const find = (text: string, titleAt: (line: number) => string = none) => findContradictions('x.md', text, titleAt).map((p) => p.lines);

  it('finds always/never for the same short object, tabs vs spaces, two widths, quotes, semicolons', () => {
    expect(find('- Always use semicolons in JS.\n- ok\n- Never use semicolons in JS.\n')).toEqual([[1, 3]]);
    expect(find('Use tabs for indentation.\n\nIndent with spaces.\n')).toEqual([[1, 3]]);
    expect(find('- 2-space indentation\n- Indent code with 4 spaces\n')).toEqual([[1, 2]]);
    expect(find('Prefer single quotes.\nUse double quotes.\n')).toEqual([[1, 2]]);
    expect(find('Always add semicolons.\nNo semicolons, ever.\n')).toEqual([[1, 2]]);
  });

  it('stays quiet on look-alikes (the false positives we refuse to raise)', () => {
    const quiet = [
      // different languages on the line
      'Go: use tabs (gofmt).\nYAML: indent with 2 spaces.\n',
      'Python code uses 4 spaces for indentation.\nTypeScript uses 2 spaces for indentation.\n',
      // different objects
      'Always use `const`.\nNever use `var`.\n',
      'Always run tests before pushing.\nNever run tests against production.\n',
      // one statement, not two
      'Use spaces, not tabs.\n',
      'Never use tabs. Indent with 2 spaces.\n',
      'Use 2 spaces for indentation.\nKeep indentation at 2 spaces.\n',
      // hedged
      'Always write tests.\nYou do not always write tests first.\n',
      // inside a code fence
      'Use tabs for indentation.\n```\n# indent with 4 spaces\nindent with spaces\n```\n',
      // always() in GitHub Actions
      'Use `always()` on a debug step.\nNever use always() casually.\n',
    ];
    for (const text of quiet) expect(find(text), text).toEqual([]);
  });

  it('uses the section title as the scope of a line that names no language', () => {
    const text = '## Go\n- Use tabs for indentation.\n## Python\n- Use 4 spaces for indentation.\n';
    const titleAt = (line: number) => (line >= 3 ? 'Python' : 'Go');
    expect(find(text, titleAt)).toEqual([]);
    expect(find(text, () => 'Style')).toEqual([[2, 4]]);
  });

  it('on the corpus: every file reported, each hit inspected (none today)', () => {
    const hits: string[] = [];
    for (const name of corpusFiles) {
      const bytes = new Uint8Array(readFileSync(corpusPath(name)));
      const a = analyze(snap([src(REPO, 'copilot-repo', bytes)]));
      for (const p of a.problems.filter((x) => x.code === 'POSSIBLE_CONTRADICTION')) hits.push(`${name}: ${p.message}`);
    }
    // Measured by hand: the corpus has no contradiction these rules can see, and the rules
    // raise none (0 false positives over 33 files). A hit here must be inspected and either
    // kept (a true contradiction, then list it here) or fixed in the rules.
    expect(hits).toEqual([]);
  });
});

describe('analyze: corpus', () => {
  it.each(corpusFiles)('%s: sections cover the file, problems carry valid line numbers', (name) => {
    const bytes = new Uint8Array(readFileSync(corpusPath(name)));
    const a = analyze(snap([src(REPO, 'copilot-repo', bytes)]));
    const lines = a.sources[0]!.lines;
    const ranges = a.sections.flatMap((s) => s.ranges).sort((x, y) => x.start - y.start);
    let pos = 0;
    for (const r of ranges) {
      expect(r.start).toBe(pos);
      pos = r.end;
    }
    expect(pos).toBe(bytes.length);
    for (const p of a.problems) for (const l of p.lines) expect(l >= 1 && l <= lines).toBe(true);
    expect(new Set(a.sections.map((s) => s.id)).size).toBe(a.sections.length);
  });

  it('patterns over the corpus', () => {
    const patterns: Record<string, string> = {};
    for (const name of corpusFiles) {
      const bytes = new Uint8Array(readFileSync(corpusPath(name)));
      patterns[name] = analyze(snap([src(REPO, 'copilot-repo', bytes)])).pattern;
    }
    const count = (p: string) => Object.values(patterns).filter((x) => x === p).length;
    // Small files with one or two sections are clean; the big monoliths are structured;
    // the heading-less .cursorrules is unstructured; no corpus file is messy.
    expect(patterns['0xfrankz__Kaas__.cursorrules']).toBe('unstructured');
    expect(patterns['sbroenne__mcp-server-excel__.github__copilot-instructions__premodular.md']).toBe('structured');
    expect(patterns['dyoshikawa__rulesync__.github__copilot-instructions.md']).toBe('clean');
    expect(count('messy')).toBe(0);
    // The outside corpus (COPILOT_ONBOARDING_CORPUS) has at least 20 structured files; the vendored set 8.
    expect(count('structured')).toBeGreaterThanOrEqual(CORPUS_ENV_DIR ? 20 : 8);
  });

  it('a 1 MB monolith is analysed into sections that cover every byte (timing lives in bench/)', () => {
    const base = readFileSync(corpusPath('sbroenne__mcp-server-excel__.github__copilot-instructions__premodular.md'), 'utf8');
    let text = '';
    // one H1 on top, then copies whose headings are numbered to stay distinct
    for (let i = 0; text.length < 1 << 20; i++) text += (i ? base.replace(/^# /gm, '## ') : base).replace(/^(#{1,6} .*)$/gm, `$1 ${i}`);
    const s = snap([src(REPO, 'copilot-repo', text)]);
    const a = analyze(s);
    expect(a.sections.length).toBeGreaterThan(100);
    expect(Buffer.concat(a.sections.flatMap((x) => x.ranges.map((r) => Buffer.from(s.sources[0]!.bytes.subarray(r.start, r.end))))).length).toBe(s.sources[0]!.bytes.length);
  });
});

describe('UTF-8 validity', () => {
  const fatal = new TextDecoder('utf-8', { fatal: true });
  it('isUtf8 (used by the snapshot) accepts exactly what a fatal TextDecoder accepts', () => {
    const samples = [
      [0xed, 0xa0, 0x80], // a surrogate
      [0xc0, 0xaf], // overlong
      [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
      [0xe2, 0x82], // truncated
      [0xef, 0xbb, 0xbf, 0x41], // BOM + A
    ].map((b) => Uint8Array.from(b));
    const ok = (b: Uint8Array) => {
      try {
        fatal.decode(b);
        return true;
      } catch {
        return false;
      }
    };
    for (const b of samples) expect(isUtf8(b)).toBe(ok(b));
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
        expect(isUtf8(b)).toBe(ok(b));
      }),
      { numRuns: runs(2000) },
    );
  });
});
