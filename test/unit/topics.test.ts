import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { proposeTopicSections, PREAMBLE_TITLE } from '../../server/src/core/topics.js';
import { parseMarkdown } from '../../server/src/core/markdown.js';
import type { Section } from '../../server/src/core/types.js';
import { quick, runs } from '../helpers/runs.js';

const enc = new TextEncoder();
const dec = new TextDecoder('utf-8', { ignoreBOM: true });
const P = '.github/copilot-instructions.md';

function propose(text: string | Uint8Array, firstIndex = 0): { sections: Section[]; bytes: Uint8Array } {
  const bytes = typeof text === 'string' ? enc.encode(text) : text;
  return { sections: proposeTopicSections(P, bytes, parseMarkdown(bytes), firstIndex), bytes };
}

/** The invariant: the ranges of all sections, sorted, tile [0, size). */
function expectTiling(sections: Section[], size: number): void {
  const ranges = sections.flatMap((s) => s.ranges).sort((a, b) => a.start - b.start);
  let pos = 0;
  for (const r of ranges) {
    expect(r.start).toBe(pos);
    expect(r.end).toBeGreaterThanOrEqual(r.start);
    pos = r.end;
  }
  expect(pos).toBe(size);
  for (const s of sections) {
    for (let i = 1; i < s.ranges.length; i++) expect(s.ranges[i]!.start).toBeGreaterThan(s.ranges[i - 1]!.end);
  }
}

function textOf(bytes: Uint8Array, s: Section): string {
  return s.ranges.map((r) => dec.decode(bytes.subarray(r.start, r.end))).join('');
}

const UNSTRUCTURED = [
  'You are a helpful assistant for this repository. Be concise.',
  '',
  '- Use TypeScript strict mode; never use `any`.',
  '- Target Python 3.12 and format with ruff.',
  '- Keep answers short.',
  '',
  'Tests use vitest and live next to the code as `*.test.ts`; write a failing unit test first.',
  '',
  '```ts',
  '// a TypeScript example with a blank line inside the fence',
  '',
  'const x: number = 1;',
  '```',
  '',
  'Prefer TypeScript discriminated unions; tsconfig stays strict.',
  '',
  'Answer in English.',
  '',
].join('\n');

describe('proposeTopicSections', () => {
  it('groups blocks by topic, keeps the rest as a General preamble, in source order', () => {
    const { sections, bytes } = propose(UNSTRUCTURED, 3);
    expectTiling(sections, bytes.length);
    expect(sections.map((s) => [s.id, s.title, s.kind, s.proposed, s.level])).toEqual([
      ['s03-preamble', PREAMBLE_TITLE, 'preamble', false, 0],
      ['s04-typescript', 'TypeScript', 'topic', true, 0],
      ['s05-python', 'Python', 'topic', true, 0],
      ['s06-testing', 'Testing', 'topic', true, 0],
    ]);
    const ts = sections[1]!;
    expect(ts.ranges.length).toBe(2); // the list item and the later paragraph: non-contiguous
    expect(textOf(bytes, ts)).toContain('- Use TypeScript strict mode');
    expect(textOf(bytes, ts)).toContain('Prefer TypeScript discriminated unions');
    // the fence (with its blank line) is never split and stays with the block before it
    const testing = textOf(bytes, sections[3]!);
    expect(testing).toContain('```ts\n// a TypeScript example with a blank line inside the fence\n\nconst x: number = 1;\n```\n');
    const general = textOf(bytes, sections[0]!);
    expect(general).toContain('Be concise.');
    expect(general).toContain('- Keep answers short.');
    expect(general).toContain('Answer in English.');
    expect(sections[0]!.startLine).toBe(1);
    expect(ts.startLine).toBe(3);
    expect(sections[3]!.endLine).toBeGreaterThan(sections[3]!.startLine);
  });

  it('returns one preamble for text with fewer than two topic blocks', () => {
    for (const text of ['', 'Be concise.\n', 'Be concise.\n\nUse Python 3.12.\n', 'no newline at all']) {
      const { sections, bytes } = propose(text);
      expect(sections).toHaveLength(1);
      expect(sections[0]).toMatchObject({ id: 's00-preamble', kind: 'preamble', title: PREAMBLE_TITLE, proposed: false, ranges: [{ start: 0, end: bytes.length }] });
    }
  });

  it('never splits a fence, even an unclosed one', () => {
    const text = 'Use Python 3.12.\n\n```python\nimport os\n\n\n- Use TypeScript strict\n\nMore Python.\n';
    const { sections, bytes } = propose(text);
    expectTiling(sections, bytes.length);
    expect(sections).toHaveLength(1); // everything after the open fence is one block
  });

  it('keeps an intro line with its list, splits a bare list into items', () => {
    const intro = 'Testing:\n- use vitest\n- one assert per test\n\nPython:\n- use ruff\n- type hints\n';
    const a = propose(intro);
    expect(a.sections.map((s) => s.title)).toEqual(['Testing', 'Python']);
    expect(textOf(a.bytes, a.sections[0]!)).toBe('Testing:\n- use vitest\n- one assert per test\n\n');
    const bare = '- Use TypeScript strict mode.\n- Format Python with ruff.\n  Continuation of the Python item.\n- Be kind.\n';
    const b = propose(bare);
    expectTiling(b.sections, b.bytes.length);
    expect(b.sections.map((s) => s.title)).toEqual(['TypeScript', 'Python', PREAMBLE_TITLE]);
    expect(textOf(b.bytes, b.sections[1]!)).toBe('- Format Python with ruff.\n  Continuation of the Python item.\n');
  });

  it('BOM and front matter open the preamble; CRLF and CR work; no trailing newline is fine', () => {
    const body = 'Use TypeScript strict.\n\nFormat Python with ruff.\n\nBe kind.';
    for (const text of [`\uFEFF${body}`, `---\ntitle: x\n---\n${body}`, body.replace(/\n/g, '\r\n'), body.replace(/\n/g, '\r')]) {
      const { sections, bytes } = propose(text);
      expectTiling(sections, bytes.length);
      expect(sections.map((s) => s.title)).toEqual([PREAMBLE_TITLE, 'TypeScript', 'Python', PREAMBLE_TITLE].slice(text.startsWith('Use') ? 1 : 0, 4).filter((t, i, a) => a.indexOf(t) === i));
      if (text.startsWith('\uFEFF') || text.startsWith('---')) {
        expect(sections[0]!.kind).toBe('preamble');
        expect(sections[0]!.ranges[0]!.start).toBe(0);
        expect(textOf(bytes, sections[1]!).startsWith('Use TypeScript')).toBe(true);
      }
    }
  });

  it('gives the same grouping for LF and CRLF', () => {
    const a = propose(UNSTRUCTURED).sections.map((s) => [s.id, s.title, s.ranges.length, s.startLine, s.endLine]);
    const b = propose(UNSTRUCTURED.replace(/\n/g, '\r\n')).sections.map((s) => [s.id, s.title, s.ranges.length, s.startLine, s.endLine]);
    expect(b).toEqual(a);
  });

  it('tiles every byte for any input (property)', () => {
    const piece = fc.constantFrom('Use TypeScript', 'Python ruff', 'vitest tests `*.test.ts`', 'Be kind', '- ', '* ', '1. ', '```', '~~~', '\n', '\n\n', '\r\n', '\r', '  ', '中文', '😀', '\uFEFF', '---\n', '# ', 'Docker', 'CI workflows');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.nat({ max: 120 }), (parts, first) => {
        const { sections, bytes } = propose(parts.join(''), first);
        expectTiling(sections, bytes.length);
        const ids = sections.map((s) => s.id);
        expect(new Set(ids).size).toBe(ids.length);
        sections.forEach((s, i) => {
          expect(s.id.startsWith(`s${String(first + i).padStart(2, '0')}-`)).toBe(true);
          expect(s.sourcePath).toBe(P);
          expect(s.startLine).toBeGreaterThanOrEqual(1);
          expect(s.endLine).toBeGreaterThanOrEqual(s.startLine);
          if (i > 0) expect(s.ranges[0]!.start).toBeGreaterThan(sections[i - 1]!.ranges[0]!.start);
        });
        expect(sections.filter((s) => s.kind === 'preamble').length).toBeLessThanOrEqual(1);
      }),
      { numRuns: runs(1000) },
    );
  });

  // The input's size is the subject (a quadratic path would hang here): npm test only.
  it.skipIf(quick)('is fast on a 10 MB file', () => {
    const block = (i: number): string =>
      [`- Use TypeScript strict mode, rule ${i}.`, `- Format Python with ruff, rule ${i}.`, `Be kind and concise, note ${i}. ${'lorem ipsum dolor sit amet '.repeat(8)}`][i % 3]!;
    const parts: string[] = [];
    let n = 0;
    for (let i = 0; n < 10_000_000; i++) {
      const b = `${block(i)}\n\n`;
      parts.push(b);
      n += b.length;
    }
    const bytes = enc.encode(parts.join(''));
    const parsed = parseMarkdown(bytes);
    const sections = proposeTopicSections(P, bytes, parsed, 0);
    expect(sections.map((s) => s.title)).toEqual(['TypeScript', 'Python', PREAMBLE_TITLE]);
    expectTiling(sections, bytes.length);
  });
});
