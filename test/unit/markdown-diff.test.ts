/**
 * Differential tests: core/markdown.ts must report the same top-level headings (level, line,
 * text) as markdown-it 14 (`{ html: true }`, the reference parser) — on every corpus file,
 * on the corpus converted to CRLF and to CR-only, and on documents generated from a grammar
 * of blocks that likes the hard cases (fences full of `#`, lazy lines, HTML blocks, lists
 * and quotes holding headings, setext underlines after every kind of block, tables,
 * reference definitions, tabs, CJK and emoji, BOM, random line endings).
 *
 * How markdown-it is fed: the text decoded with TextDecoder (which drops a BOM, as GitHub
 * does) and, when the file starts with YAML front matter, with the front matter lines
 * blanked out (our parser skips front matter; markdown-it does not know it). Line numbers
 * stay aligned because markdown-it normalises CR and CRLF to one line break each, as we do.
 */
import { readFileSync } from 'node:fs';
import MarkdownIt from 'markdown-it';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMarkdown, splitSections } from '../../server/src/core/markdown.js';
import { CORPUS_ENV_DIR, corpusFiles, corpusPath, vendoredFiles } from '../helpers/corpus.js';

const md = new MarkdownIt({ html: true });
const enc = new TextEncoder();

/** Independent front matter detection for the reference side (line based, on the decoded text). */
function blankFrontMatter(text: string): string {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length < 2 || !/^---[ \t]*$/.test(lines[0]!)) return text;
  // a terminator must follow the opening line for it to be a line of its own
  if (!/^---[ \t]*(\r\n|\r|\n)/.test(text)) return text;
  for (let i = 1; i < lines.length; i++) {
    if (/^(---|\.\.\.)[ \t]*$/.test(lines[i]!)) {
      // the closing line must exist as a line (it may be the last, unterminated one)
      for (let k = 0; k <= i; k++) lines[k] = '';
      return lines.join('\n');
    }
  }
  return text;
}

function referenceHeadings(bytes: Uint8Array): string[] {
  const text = blankFrontMatter(new TextDecoder('utf-8').decode(bytes));
  const tokens = md.parse(text, {});
  const out: string[] = [];
  tokens.forEach((t, i) => {
    if (t.type === 'heading_open' && t.level === 0) {
      const content = (tokens[i + 1]?.content ?? '').replace(/[ \t]*\n[ \t]*/g, ' ').replace(/\0/g, '\uFFFD');
      out.push(`${t.tag} line ${t.map![0] + 1}: ${content}`);
    }
  });
  return out;
}

function ourHeadings(bytes: Uint8Array): string[] {
  return parseMarkdown(bytes).headings.map((h) => `h${h.level} line ${h.line}: ${h.text}`);
}

function concatSections(bytes: Uint8Array): Uint8Array {
  const parsed = parseMarkdown(bytes);
  const sections = splitSections('x.md', bytes, parsed, 1);
  const parts: Uint8Array[] = [];
  for (const s of sections) for (const r of s.ranges) parts.push(bytes.subarray(r.start, r.end));
  return Buffer.concat(parts);
}

function withEol(bytes: Uint8Array, eol: '\r\n' | '\r'): Uint8Array {
  return enc.encode(new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes).replace(/\r\n|\r|\n/g, eol));
}

describe('corpus: same top-level headings as markdown-it', () => {
  it('finds the corpus', () => {
    expect(vendoredFiles).toHaveLength(16);
    if (CORPUS_ENV_DIR) expect(corpusFiles.length).toBeGreaterThan(vendoredFiles.length);
  });
  it.each(corpusFiles)('%s', (name) => {
    const bytes = new Uint8Array(readFileSync(corpusPath(name)));
    const ref = referenceHeadings(bytes);
    expect(ourHeadings(bytes)).toEqual(ref);
    // the same file with CRLF and with CR-only line endings
    for (const eol of ['\r\n', '\r'] as const) {
      const converted = withEol(bytes, eol);
      expect(ourHeadings(converted), JSON.stringify(eol)).toEqual(ref);
      expect(Buffer.from(concatSections(converted)).equals(Buffer.from(converted))).toBe(true);
    }
  });
});

// ---------------------------------------------------------------------------------------
// Grammar of blocks

const word = fc.constantFrom(
  'foo', 'Bar', 'baz qux', 'Install', 'TypeScript', '日本語', '中文标题', '한국어', '🚀', '👩‍💻 emoji', 'café', 'naïve',
  '#', '#tag', '##', '*', '-', '+', '1.', '2)', '>', '|', '`', '```', '~~~', '<div>', '</div>', '<!--', '-->', '<br>',
  '[x]:', '[x]', '=', '==', '---', '\\', '\\#', '\u3000', '\u00a0', 'a|b', '# x', ':', '"t"', '(p)', '&amp;', '\t',
);
const text = fc.array(word, { minLength: 1, maxLength: 4 }).map((ws) => ws.join(' '));
const ind3 = fc.constantFrom('', '', '', ' ', '  ', '   ');
const ind = fc.constantFrom('', '', '', ' ', '  ', '   ', '    ', '\t', '     ', ' \t');

const atxLine = fc
  .tuple(fc.constantFrom('', '', ' ', '   ', '    ', '\t'), fc.integer({ min: 1, max: 7 }), fc.constantFrom(' ', ' ', '', '\t', '  '), fc.oneof(text, fc.constant('')), fc.constantFrom('', '', ' #', ' ##  ', '#', ' \\#', ' # x'))
  .map(([i, n, sp, t, close]) => `${i}${'#'.repeat(n)}${sp}${t}${close}`);

type Block = string[];

const atx: fc.Arbitrary<Block> = atxLine.map((l) => [l]);

const setext: fc.Arbitrary<Block> = fc
  .tuple(fc.array(fc.oneof(text, atxLine), { minLength: 1, maxLength: 3 }), ind, fc.constantFrom('===', '---', '=', '-', '- -', '==  ', '----', '= =', '--\t'))
  .map(([lines, i, u]) => [...lines, `${i}${u}`]);

const fence: fc.Arbitrary<Block> = fc
  .tuple(
    ind3,
    fc.constantFrom('```', '~~~', '````', '~~~~~', '``'),
    fc.constantFrom('', 'ts', 'md', 'js `x`', ' bash'),
    fc.array(fc.oneof(text, atxLine, fc.constant(''), fc.constant('---'), fc.constant('===')), { maxLength: 4 }),
    fc.constantFrom('same', 'longer', 'shorter', 'other', 'none', 'indented', 'trailing'),
  )
  .map(([i, f, info, body, close]) => {
    const ch = f[0]!;
    const closeLine =
      close === 'same' ? `${i}${f}` :
      close === 'longer' ? `${f}${ch}` :
      close === 'shorter' ? f.slice(1) :
      close === 'other' ? (ch === '`' ? '~~~' : '```') :
      close === 'indented' ? `    ${f}` :
      close === 'trailing' ? `${f}  ` : null;
    return [`${i}${f}${info}`, ...body, ...(closeLine === null ? [] : [closeLine])];
  });

const indentedCode: fc.Arbitrary<Block> = fc.array(
  fc.tuple(fc.constantFrom('    ', '\t', '     ', '  \t'), fc.oneof(text, fc.constant('# heading in code'), atxLine)).map(([i, t]) => `${i}${t}`),
  { minLength: 1, maxLength: 3 },
);

const html: fc.Arbitrary<Block> = fc.constantFrom(
  ['<div>', '# not a heading', '</div>'],
  ['<div>', '', '# a heading after the blank line'],
  ['<!--', '# hidden', '', '# still hidden', '-->', '# visible'],
  ['<!-- one line -->'],
  ['<script>', '# x', '</script>'],
  ['<SCRIPT type="x">', '', '# x', '</script> after'],
  ['<pre>', '# x', '</PRE>'],
  ['<textarea>', '', '# x', '</textarea>'],
  ['<?php', '# x', '?>'],
  ['<!DOCTYPE html>'],
  ['<![CDATA[', '# x', ']]>'],
  ['<custom-el attr="1">', '# after a kind 7 tag'],
  ['</span>', '# y'],
  ['<a href="x">', 'text'],
  ['<div>text</div>'],
  ['<DIV class=x>', '# inside'],
  ['<section', '# x'],
  ['<details><summary>S</summary>', '', '# H', '</details>'],
  ['<img src="x" />'],
  ['<span>inline</span> text'],
  ['<div\u00a0x>', '# nbsp after the tag name'],
  ['<script\u3000x>', '# ideographic space'],
);

const bullet = fc.constantFrom('-', '*', '+', '1.', '2.', '1)', '10.', '-', '-');
const listItem = fc
  .tuple(
    fc.constantFrom('', '', ' ', '  ', '   '),
    bullet,
    fc.constantFrom(' ', ' ', '  ', '    ', '     ', '\t', ''),
    fc.oneof(text, atxLine, fc.constantFrom('', '<!--', '<div>', '```', '\t-\tx', '> q')),
    fc.array(
      fc.oneof(
        fc.tuple(fc.constantFrom('', '  ', '   ', '    ', '      ', '\t', ' \t'), fc.oneof(text, atxLine, fc.constantFrom('```', '~~~', '---', '===', '> q', '- sub', '1. sub', '-->', '-\t\tx', '>\t-\t# x'))).map(([i, t]) => `${i}${t}`),
        fc.constant(''),
      ),
      { maxLength: 4 },
    ),
  )
  .map(([i, b, sp, t, rest]) => [`${i}${b}${sp}${t}`, ...rest]);
const list: fc.Arbitrary<Block> = fc.array(listItem, { minLength: 1, maxLength: 3 }).map((items) => items.flat());

const quote: fc.Arbitrary<Block> = fc.array(
  fc
    .tuple(fc.constantFrom('>', '> ', '>>', '> >', ' > ', '', '>\t', '   >', ' >\t', '  >\t\t'), fc.oneof(text, atxLine, fc.constantFrom('```', '---', '===', '- item', '', '    code', '-\tx', '-\t\t# x', '1.\tx', '\t# x')))
    .map(([q, t]) => `${q}${t}`),
  { minLength: 1, maxLength: 4 },
);

const paragraph: fc.Arbitrary<Block> = fc.array(fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: fc.tuple(ind, text).map(([i, t]) => `${i}${t}`) }), { minLength: 1, maxLength: 3 });

const table: fc.Arbitrary<Block> = fc
  .tuple(
    fc.constantFrom('a | b', '| a | b |', 'a|b|c', '| x |', 'a \\| b | c', '日本 | 語'),
    fc.constantFrom('--- | ---', '|---|---|', ':-:|--:|:--', '| --- |', '---|---', '- | -', '--- | --- |\u3000'),
    fc.array(fc.constantFrom('1 | 2', '| 3 | 4 |', '5', '# not a row?', '\u3000', 'x | y | z', '> q'), { maxLength: 3 }),
  )
  .map(([h, d, rows]) => [h, d, ...rows]);

const referenceLines: fc.Arbitrary<Block> = fc.constantFrom(
  [`[${'a'.repeat(999)}]: /x`],
  [`[${'a'.repeat(1000)}]: /x`],
  [`[${'日'.repeat(600)}]: /x`],
  [`[${'😀'.repeat(500)}]: /x`],
  [`[${'😀'.repeat(1000)}]: /x`],
  [`[${'a'.repeat(990)}`, `${'b'.repeat(20)}]: /x`],
  ['[foo]: /url'],
  ['[foo]: /url "title"'],
  ['[foo]:', '/url'],
  ['[foo]: javascript:alert(1)'],
  ['[foo]: JAVASCRIPT:x'],
  ['[foo]: &#106;avascript:x'],
  ['[foo]: javascript&colon;x'],
  ['[foo]: &Tab;javascript:x'],
  ['[foo]: &amp;javascript:x'],
  ['[foo]: <\u00a0javascript:x>'],
  ['[foo]: data:image/png;base64,xx'],
  ['[foo]: /url', '"title"'],
  ['[foo]: /url', '"title" junk'],
  ['[]: /x'],
  ['[ ]: /x'],
  ['[\u3000]: /x'],
  ['[foo]: <a b>'],
  ['[foo]: <a', 'b>'],
  ['[foo]: /url "unterminated', 'title"'],
  ['[foo]: /url (paren', 'title)'],
  ['[a\\]b]: /x'],
  ['[multi', 'line]: /x'],
  ['[foo]: /url "t" extra'],
  ['[foo]: /url\\', '"t"'],
  ['[foo]: (a(b)c)'],
  ['[foo]:'],
);
// a reference definition followed by what would otherwise be a setext underline
const reference: fc.Arbitrary<Block> = fc
  .tuple(referenceLines, fc.constantFrom([], [], ['==='], ['---'], ['text', '---']))
  .map(([r, tail]) => [...r, ...tail]);

const hr: fc.Arbitrary<Block> = fc.constantFrom(['---'], ['***'], ['___'], ['- - -'], [' * * *'], ['-- -'], ['_ _ _ _'], ['***x']);
// markdown-it stops at 100 levels of nesting (maxNesting): a list item that deep swallows the rest
const deep: fc.Arbitrary<Block> = fc.constantFrom(
  [`${'- '.repeat(51)}x`, '# after deep lists'],
  [`${'- '.repeat(49)}x`, '# after less deep lists'],
  [`${'> '.repeat(101)}x`, '# after deep quotes'],
  [`${'> '.repeat(99)}x`],
);
const blank: fc.Arbitrary<Block> = fc.constantFrom([''], [''], ['   '], ['\t']);

const block: fc.Arbitrary<Block> = fc.oneof(
  { weight: 4, arbitrary: atx },
  { weight: 3, arbitrary: setext },
  { weight: 3, arbitrary: fence },
  { weight: 2, arbitrary: indentedCode },
  { weight: 3, arbitrary: html },
  { weight: 3, arbitrary: list },
  { weight: 3, arbitrary: quote },
  { weight: 4, arbitrary: paragraph },
  { weight: 2, arbitrary: table },
  { weight: 2, arbitrary: reference },
  { weight: 2, arbitrary: hr },
  { weight: 5, arbitrary: blank },
  { weight: 1, arbitrary: deep },
);

const doc = fc
  .record({
    bom: fc.boolean(),
    frontMatter: fc.option(fc.array(fc.oneof(text, fc.constant('applyTo: "**"'), fc.constant('# yaml comment')), { maxLength: 3 }), { freq: 4 }),
    fmClose: fc.constantFrom('---', '...', '---  '),
    blocks: fc.array(block, { maxLength: 12 }),
    eol: fc.constantFrom('lf', 'crlf', 'cr', 'mixed'),
    mixed: fc.array(fc.constantFrom('\n', '\r\n', '\r'), { minLength: 64, maxLength: 64 }),
    finalEol: fc.boolean(),
  })
  .map((d) => {
    const lines = [...(d.frontMatter ? ['---', ...d.frontMatter, d.fmClose] : []), ...d.blocks.flat()];
    const eolAt = (i: number): string => (d.eol === 'lf' ? '\n' : d.eol === 'crlf' ? '\r\n' : d.eol === 'cr' ? '\r' : d.mixed[i % 64]!);
    let s = '';
    lines.forEach((l, i) => {
      s += l;
      if (i < lines.length - 1 || d.finalEol) s += eolAt(i);
    });
    return (d.bom ? '\uFEFF' : '') + s;
  });

describe('generated documents (fast-check)', () => {
  it('sections re-concatenate to the original bytes', () => {
    fc.assert(
      fc.property(doc, (s) => {
        const bytes = enc.encode(s);
        expect(Buffer.from(concatSections(bytes)).equals(Buffer.from(bytes))).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });

  it('top-level headings equal markdown-it', () => {
    fc.assert(
      fc.property(doc, (s) => {
        const bytes = enc.encode(s);
        expect(ourHeadings(bytes)).toEqual(referenceHeadings(bytes));
      }),
      { numRuns: 3000 },
    );
  });

  it('heading byte ranges start at their line and hold the heading text', () => {
    fc.assert(
      fc.property(doc, (s) => {
        const bytes = enc.encode(s);
        const p = parseMarkdown(bytes);
        for (const h of p.headings) {
          const lineStart = p.lineStarts[h.line - 1]!;
          expect(h.start).toBe(h.line === 1 && p.bom ? 3 : lineStart);
          expect(h.end).toBeGreaterThan(h.start);
          const raw = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(h.start, h.end));
          for (const word of h.text.split(/\s+/).filter(Boolean)) expect(raw).toContain(word);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('random bytes never throw and still re-concatenate', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        expect(Buffer.from(concatSections(bytes)).equals(Buffer.from(bytes))).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('random ASCII-heavy text matches markdown-it too', () => {
    const chars = fc.constantFrom('#', ' ', '\n', '\r', '-', '=', '`', '~', '>', '*', '1', '.', '<', 'a', 'b', '|', '[', ']', ':', '\t', '"', '!');
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 200 }).map((a) => a.join('')), (s) => {
        const bytes = enc.encode(s);
        expect(ourHeadings(bytes)).toEqual(referenceHeadings(bytes));
      }),
      { numRuns: 3000 },
    );
  });
});
