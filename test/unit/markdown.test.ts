import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineOfOffset, parseMarkdown, sectionId, splitLevel, splitSections } from '../../server/src/core/markdown.js';
import type { Section } from '../../server/src/core/types.js';
import { EXAMPLE_MONOLITH as EXAMPLE } from '../helpers/example-md.js';
import { corpusFiles, corpusPath } from '../helpers/corpus.js';
import { runs } from '../helpers/runs.js';


const enc = new TextEncoder();
const b = (s: string): Uint8Array => enc.encode(s);
const heads = (s: string) => parseMarkdown(b(s)).headings.map((h) => [h.level, h.line, h.text]);

function concat(bytes: Uint8Array, sections: Section[]): Buffer {
  return Buffer.concat(sections.flatMap((s) => s.ranges.map((r) => bytes.subarray(r.start, r.end))));
}

function expectContiguous(bytes: Uint8Array, sections: Section[]): void {
  let pos = 0;
  for (const s of sections) {
    expect(s.ranges).toHaveLength(1);
    expect(s.ranges[0]!.start).toBe(pos);
    expect(s.ranges[0]!.end).toBeGreaterThan(pos);
    pos = s.ranges[0]!.end;
    expect(s.startLine).toBeLessThanOrEqual(s.endLine);
    expect(s.proposed).toBe(false);
  }
  expect(pos).toBe(bytes.length);
  expect(concat(bytes, sections).equals(Buffer.from(bytes))).toBe(true);
}


describe('parseMarkdown: headings', () => {
  it('EXAMPLE.md: one H1, six H2, the `#` line in the fence is not a heading', () => {
    expect(heads(EXAMPLE)).toEqual([
      [1, 1, 'Instructions for the Orders service'],
      [2, 5, 'TypeScript'],
      [2, 15, 'Testing'],
      [2, 20, 'React'],
      [2, 24, 'Python scripts'],
      [2, 28, 'CI'],
      [2, 32, 'Communication'],
    ]);
  });

  it('ATX rules: up to 3 spaces, closing #s stripped, #foo and 7 #s are not headings', () => {
    expect(heads('#foo\n####### seven\n   ### three ###\n    # code\n# \n#\n## a # b ##\n### c \\#\n')).toEqual([
      [3, 3, 'three'],
      [1, 5, ''],
      [1, 6, ''],
      [2, 7, 'a # b'],
      [3, 8, 'c \\#'],
    ]);
  });

  it('setext: may span several lines; --- after a blank line is a thematic break', () => {
    expect(heads('Title\n=====\n\nTwo\nlines\n---\n\n---\ntext\n  ---  \n')).toEqual([
      [1, 1, 'Title'],
      [2, 4, 'Two lines'],
      [2, 9, 'text'],
    ]);
  });

  it('indented code cannot interrupt a paragraph; fences can', () => {
    expect(heads('para\n    # lazy, not code\n\n    # code\n# real\n')).toEqual([[1, 5, 'real']]);
    expect(heads('para\n```\n# in fence\n```\n# after')).toEqual([[1, 5, 'after']]);
  });

  it('fences: ~~~ and ```, closing fence at least as long, unclosed runs to the end', () => {
    expect(heads('~~~~\n# a\n~~~\n# b\n~~~~~\n# c\n')).toEqual([[1, 6, 'c']]);
    expect(heads('```\n# a\n~~~\n# b\n')).toEqual([]);
    expect(heads('``` x`y\n# a heading: a backtick in the info string means no fence\n')).toEqual([[1, 2, 'a heading: a backtick in the info string means no fence']]);
  });

  it('HTML blocks hide headings until their end condition', () => {
    expect(heads('<!--\n# hidden\n\n# hidden too\n-->\n# shown\n')).toEqual([[1, 6, 'shown']]);
    expect(heads('<div>\n# hidden\n\n# shown\n')).toEqual([[1, 4, 'shown']]);
    expect(heads('<custom-tag a="1">\n# hidden\n\n# shown\n')).toEqual([[1, 4, 'shown']]);
    // kind 7 cannot interrupt a paragraph
    expect(heads('para\n<custom-tag>\n# shown\n')).toEqual([[1, 3, 'shown']]);
    expect(heads('<script>\n\n# hidden\n</script>\n# shown')).toEqual([[1, 5, 'shown']]);
  });

  it('headings inside block quotes and list items do not count; lazy lines matter', () => {
    expect(heads('> # quoted\n# top\n')).toEqual([[1, 2, 'top']]);
    expect(heads('- # in item\n  # still in item\n# top\n')).toEqual([[1, 3, 'top']]);
    expect(heads('> para\nlazy\n---\n')).toEqual([]); // lazy line then a thematic break, not a setext heading
    expect(heads('- item\n\n  para\n===\n')).toEqual([]);
    expect(heads('1. a\n2. b\n\n# top\n')).toEqual([[1, 4, 'top']]);
  });

  it('tables: a --- after a table row is a thematic break, not an underline', () => {
    expect(heads('a | b\n--- | ---\n1 | 2\n---\n')).toEqual([]);
    expect(heads('a\n---\n')).toEqual([[2, 1, 'a']]);
  });

  it('a link reference definition is not a paragraph, so no setext heading follows it', () => {
    expect(heads('[foo]: /url\n===\n')).toEqual([]);
    expect(heads('[foo]: javascript:x\n===\n')).toEqual([[1, 1, '[foo]: javascript:x']]);
  });

  it('non-ASCII text: offsets are bytes, text is decoded', () => {
    const src = '前言\n\n## 日本語の見出し 🚀\n本文\n';
    const p = parseMarkdown(b(src));
    const h = p.headings[0]!;
    expect(h.text).toBe('日本語の見出し 🚀');
    expect(h.start).toBe(b('前言\n\n').length);
    expect(h.end).toBe(b('前言\n\n## 日本語の見出し 🚀\n').length);
    expect(p.size).toBe(b(src).length);
  });

  it('fences full of `#`: none of their lines is a heading, whatever the line endings', () => {
    const fenced = ['```md', '# one', '## two', '### three', '#', 'Setext?', '===', '---', '```'];
    for (const eol of ['\n', '\r\n', '\r']) {
      const src = ['# Before', ...fenced, '~~~', '# inside tildes', '```', '# still inside', '~~~', '## After', ''].join(eol);
      expect(heads(src)).toEqual([
        [1, 1, 'Before'],
        [2, 16, 'After'],
      ]);
    }
  });

  it('CJK setext and ATX headings: text decoded, byte ranges cover the whole heading lines', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const lines = ['中文标题', '========', '正文', '', '## 한국어 제목 ##', '본문'];
      const src = lines.join(eol);
      const p = parseMarkdown(b(src));
      expect(p.headings.map((h) => [h.level, h.line, h.text, h.style])).toEqual([
        [1, 1, '中文标题', 'setext'],
        [2, 5, '한국어 제목', 'atx'],
      ]);
      const [setext, atx] = p.headings;
      expect([setext!.start, setext!.end]).toEqual([0, b(lines.slice(0, 2).join(eol) + eol).length]);
      expect(atx!.start).toBe(b(lines.slice(0, 4).join(eol) + eol).length);
      expect(atx!.end).toBe(b(lines.slice(0, 5).join(eol) + eol).length);
    }
  });

  it('a heading on the last line without a line break ends at the end of the file', () => {
    const p = parseMarkdown(b('text\n\n## Last'));
    expect(p.headings).toEqual([{ level: 2, text: 'Last', style: 'atx', start: 6, end: 13, line: 3 }]);
  });

  it('NUL in a heading reads as U+FFFD; invalid UTF-8 neither throws nor moves offsets', () => {
    expect(heads('# a\0b\n')).toEqual([[1, 1, 'a\uFFFDb']]);
    const bytes = new Uint8Array([0x23, 0x20, 0xe3, 0x0a, 0xff, 0x0a, 0x23, 0x20, 0x78, 0x0a]);
    const p = parseMarkdown(bytes);
    expect(p.headings.map((h) => [h.line, h.text, h.start, h.end])).toEqual([
      [1, '\uFFFD', 0, 4],
      [3, 'x', 6, 10],
    ]);
  });

  it('a BOM after front matter is text, not a BOM', () => {
    const p = parseMarkdown(b('---\na: 1\n---\n\uFEFF# x\n'));
    expect(p.bom).toBe(false);
    expect(p.headings).toEqual([]);
  });
});

describe('parseMarkdown: bytes, lines, BOM, front matter', () => {
  it('reports line endings and line starts', () => {
    expect(parseMarkdown(b('a\nb\n')).lineEnding).toBe('lf');
    expect(parseMarkdown(b('a\r\nb\r\n')).lineEnding).toBe('crlf');
    expect(parseMarkdown(b('a\rb\r')).lineEnding).toBe('cr');
    expect(parseMarkdown(b('a\rb\r\nc\n')).lineEnding).toBe('mixed');
    expect(parseMarkdown(b('one line')).lineEnding).toBe('none');
    expect(parseMarkdown(b('a\r\nbb\rc\nd')).lineStarts).toEqual([0, 3, 6, 8]);
    expect(parseMarkdown(b('')).lineStarts).toEqual([]);
    expect(parseMarkdown(b('a\n')).lineStarts).toEqual([0]);
  });

  it('CRLF and CR-only give the same headings with raw byte offsets', () => {
    const lf = parseMarkdown(b('# A\ntext\n## B\nB2\n---\n'));
    for (const eol of ['\r\n', '\r']) {
      const src = b(`# A${eol}text${eol}## B${eol}B2${eol}---${eol}`);
      const p = parseMarkdown(src);
      expect(p.headings.map((h) => [h.level, h.line, h.text])).toEqual(lf.headings.map((h) => [h.level, h.line, h.text]));
      const [a, bh, c] = p.headings;
      expect(a!.start).toBe(0);
      expect(bh!.start).toBe(3 + eol.length + 4 + eol.length);
      expect(bh!.end).toBe(bh!.start + 4 + eol.length);
      expect([c!.style, c!.start, c!.end]).toEqual(['setext', bh!.end, src.length]);
    }
  });

  it('BOM: flagged, offsets count its 3 bytes, a heading on line 1 starts after it', () => {
    const bytes = b('\uFEFF# Title\nbody\n');
    expect(bytes.length).toBe(3 + 13);
    const p = parseMarkdown(bytes);
    expect(p.bom).toBe(true);
    expect(p.lineStarts[0]).toBe(0);
    expect(p.headings).toEqual([{ level: 1, text: 'Title', style: 'atx', start: 3, end: 11, line: 1 }]);
    const sections = splitSections('x.md', bytes, p, 1);
    expect(sections.map((s) => [s.kind, s.ranges[0]])).toEqual([
      ['preamble', { start: 0, end: 3 }],
      ['heading', { start: 3, end: 16 }],
    ]);
  });

  it('front matter is its own block, not a thematic break nor a setext heading', () => {
    const src = '---\napplyTo: "**"\n---\n# Title\n';
    const p = parseMarkdown(b(src));
    expect(p.frontMatter).toEqual({ start: 0, end: 22, raw: '---\napplyTo: "**"\n---\n' });
    expect(heads(src)).toEqual([[1, 4, 'Title']]);
    expect(parseMarkdown(b('---\nx: 1\n...\ntext\n')).frontMatter?.end).toBe(13);
    expect(parseMarkdown(b('\uFEFF---\r\nx: 1\r\n---\r\n')).frontMatter).toEqual({ start: 0, end: 19, raw: '---\r\nx: 1\r\n---\r\n' });
  });

  it('unclosed front matter is no front matter (markdown rules apply)', () => {
    const p = parseMarkdown(b('---\ntitle\n\nbody\n'));
    expect(p.frontMatter).toBeNull();
    expect(parseMarkdown(b('text\n---\nx\n---\n')).frontMatter).toBeNull();
    expect(heads('---\nFoo\n---\n')).toEqual([]); // closed: front matter
    expect(parseMarkdown(b(' ---\nFoo\n---\n')).frontMatter).toBeNull();
  });

  it('BOM, CRLF and front matter together: headings after the front matter, raw offsets', () => {
    const bytes = b('\uFEFF---\r\napplyTo: "**"\r\n---\r\n# Title\r\nbody\r\n');
    const p = parseMarkdown(bytes);
    expect(p.frontMatter?.end).toBe(3 + 5 + 15 + 5);
    expect(p.headings).toEqual([{ level: 1, text: 'Title', style: 'atx', start: 28, end: 37, line: 4 }]);
    expect(splitSections('x.md', bytes, p, 1).map((s) => [s.kind, s.ranges[0]])).toEqual([
      ['frontmatter', { start: 0, end: 28 }],
      ['heading', { start: 28, end: bytes.length }],
    ]);
  });
});

describe('splitSections', () => {
  it('EXAMPLE.md: preamble (H1 + intro) and six H2 sections', () => {
    const bytes = b(EXAMPLE);
    const p = parseMarkdown(bytes);
    const s = splitSections('.github/copilot-instructions.md', bytes, p, 1);
    expect(s.map((x) => x.id)).toEqual(['s01-preamble', 's02-typescript', 's03-testing', 's04-react', 's05-python-scripts', 's06-ci', 's07-communication']);
    expect(s.map((x) => [x.kind, x.level, x.startLine, x.endLine])).toEqual([
      ['preamble', 0, 1, 4],
      ['heading', 2, 5, 14],
      ['heading', 2, 15, 19],
      ['heading', 2, 20, 23],
      ['heading', 2, 24, 27],
      ['heading', 2, 28, 31],
      ['heading', 2, 32, 34],
    ]);
    expect(s[0]!.title).toBe('Preamble');
    expect(s.every((x) => x.sourcePath === '.github/copilot-instructions.md')).toBe(true);
    expectContiguous(bytes, s);
  });

  it('chooses the split level', () => {
    const lv = (src: string) => splitLevel(parseMarkdown(b(src)).headings, b(src));
    expect(lv('# A\n## B\n## C\n')).toBe(2);
    // Level-1 title lines before the first deeper heading: the file's title, split at level 2.
    expect(lv('# Copilot Instructions\n\n# Acme coding standards\nIntro.\n## Testing\n## Style\n')).toBe(2);
    // A level-1 heading with text under it is a chapter, not a title line.
    expect(lv('# A\ntext\n# B\n## C\n')).toBe(1);
    expect(lv('## Z\n# A\n## B\n')).toBe(1); // the H1 is not first
    expect(lv('# A\ntext\n')).toBe(1);
    expect(lv('### A\n#### B\n### C\n')).toBe(3);
    expect(lv('text only\n')).toBe(0);
  });

  it('deeper headings stay inside their parent section', () => {
    const src = '## A\n### A.1\ntext\n#### A.1.1\n## B\n### B.1\n';
    const bytes = b(src);
    const s = splitSections('x.md', bytes, parseMarkdown(bytes), 1);
    expect(s.map((x) => [x.title, x.startLine, x.endLine])).toEqual([
      ['A', 1, 4],
      ['B', 5, 6],
    ]);
    expectContiguous(bytes, s);
  });

  it('front matter, then preamble, then headings; empty preamble omitted', () => {
    const bytes = b('---\na: 1\n---\n# A\n# B\n');
    const s = splitSections('x.md', bytes, parseMarkdown(bytes), 3);
    expect(s.map((x) => [x.id, x.kind, x.title])).toEqual([
      ['s03-front-matter', 'frontmatter', 'Front matter'],
      ['s04-a', 'heading', 'A'],
      ['s05-b', 'heading', 'B'],
    ]);
    expectContiguous(bytes, s);
    const bytes2 = b('---\na: 1\n---\n\n# A\n');
    expect(splitSections('x.md', bytes2, parseMarkdown(bytes2), 1).map((x) => x.kind)).toEqual(['frontmatter', 'preamble', 'heading']);
  });

  it('empty and heading-less files', () => {
    expect(splitSections('x.md', b(''), parseMarkdown(b('')), 1)).toEqual([]);
    const bytes = b('just text\nmore\n');
    const s = splitSections('x.md', bytes, parseMarkdown(bytes), 1);
    expect(s.map((x) => [x.kind, x.startLine, x.endLine])).toEqual([['preamble', 1, 2]]);
  });

  it('ids: firstIndex + position, 2 digits, 3 from 100', () => {
    expect(sectionId(1, 'A')).toBe('s01-a');
    expect(sectionId(99, 'A')).toBe('s99-a');
    expect(sectionId(100, 'A')).toBe('s100-a');
    const src = Array.from({ length: 120 }, (_, i) => `# H ${i}\n`).join('');
    const bytes = b(src);
    const s = splitSections('x.md', bytes, parseMarkdown(bytes), 1);
    expect(s[0]!.id).toBe('s01-h-0');
    expect(s[98]!.id).toBe('s99-h-98');
    expect(s[99]!.id).toBe('s100-h-99');
    expect(new Set(s.map((x) => x.id)).size).toBe(120);
  });

  it('hostile headings give safe ids', () => {
    const titles = ['../../x', '..', '/etc/passwd', 'C:\\Windows\\system32', 'CON', 'nul.txt', 'x'.repeat(500), 'Same', 'Same', '🚀🔥', '日本語', '<script>alert(1)</script>', 'a\u0000b', '-- leading --', 'Émile Zola', '', '%2e%2e%2f'];
    const src = titles.map((t) => `# ${t}\n`).join('');
    const bytes = b(src);
    const s = splitSections('x.md', bytes, parseMarkdown(bytes), 1);
    expect(s).toHaveLength(titles.length);
    for (const x of s) {
      expect(x.id).toMatch(/^s\d{2,3}-[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(x.id.length).toBeLessThanOrEqual(4 + 1 + 40);
    }
    expect(new Set(s.map((x) => x.id)).size).toBe(s.length);
    const id = (t: string) => sectionId(1, t);
    expect(id('../../x')).toBe('s01-x');
    expect(id('CON')).toBe('s01-con-section');
    expect(id('🚀🔥')).toBe('s01-section');
    expect(id('x'.repeat(500))).toBe(`s01-${'x'.repeat(40)}`);
    expect(id('Émile Zola')).toBe('s01-emile-zola');
    expect(id(`${'a'.repeat(39)} b`)).toBe(`s01-${'a'.repeat(39)}`);
    expectContiguous(bytes, s);
  });

  it('lineOfOffset', () => {
    expect(lineOfOffset([0, 5, 9], 0)).toBe(1);
    expect(lineOfOffset([0, 5, 9], 4)).toBe(1);
    expect(lineOfOffset([0, 5, 9], 5)).toBe(2);
    expect(lineOfOffset([0, 5, 9], 100)).toBe(3);
    expect(lineOfOffset([], 0)).toBe(1);
  });
});

describe('corpus: sections re-concatenate to the original bytes', () => {
  it.each(corpusFiles)('%s', (name) => {
    const bytes = new Uint8Array(readFileSync(corpusPath(name)));
    const p = parseMarkdown(bytes);
    expect(p.size).toBe(bytes.length);
    const sections = splitSections(name, bytes, p, 1);
    expectContiguous(bytes, sections);
    // line starts really are line starts
    for (const start of p.lineStarts.slice(1)) expect([0x0a, 0x0d]).toContain(bytes[start - 1]);
    // every heading section starts at its heading's line
    for (const s of sections.filter((x) => x.kind === 'heading')) {
      expect(p.headings.some((h) => h.start === s.ranges[0]!.start && h.text === s.title)).toBe(true);
    }
  });

  it('recognises the shapes the corpus notes describe', () => {
    const read = (n: string) => parseMarkdown(new Uint8Array(readFileSync(corpusPath(n))));
    expect(read('ck3user75233__ck3raven__.github__copilot-instructions.md').bom).toBe(true);
    expect(read('handwritten__cr-only-zh.md').lineEnding).toBe('cr');
    expect(read('handwritten__crlf.md').lineEnding).toBe('crlf');
    expect(read('handwritten__front-matter.md').frontMatter).not.toBeNull();
  });

  it.each(corpusFiles)('%s with CRLF and with CR-only line endings: same headings, same bytes back', (name) => {
    const bytes = new Uint8Array(readFileSync(corpusPath(name)));
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
    const lf = parseMarkdown(b(text.replace(/\r\n|\r/g, '\n'))).headings.map((h) => [h.level, h.line, h.text]);
    for (const eol of ['\r\n', '\r']) {
      const converted = b(text.replace(/\r\n|\r|\n/g, eol));
      const p = parseMarkdown(converted);
      expect(p.headings.map((h) => [h.level, h.line, h.text])).toEqual(lf);
      expectContiguous(converted, splitSections(name, converted, p, 1));
    }
  });
});

// Documents made of the hard shapes, in any line ending, with or without BOM and front matter.
const shapeLine = fc.constantFrom(
  '# h1', '## 日本語 ##', '### c', '#no', '    # code', 'para', 'Setext', '===', '---', '```', '~~~', '    ```',
  '> # quoted', '- # in item', '1. item', '  # lazy?', '<div>', '</div>', '<!--', '-->', 'a | b', '--- | ---',
  '[ref]: /url', '', '   ', '\t', '中文', '🚀 emoji', '\u3000', '#\t\ttab',
);
const shapeDoc = fc
  .record({
    bom: fc.boolean(),
    frontMatter: fc.boolean(),
    lines: fc.array(shapeLine, { maxLength: 30 }),
    eols: fc.array(fc.constantFrom('\n', '\r\n', '\r'), { minLength: 32, maxLength: 32 }),
    finalEol: fc.boolean(),
  })
  .map((d) => {
    const lines = [...(d.frontMatter ? ['---', 'applyTo: "**"', '---'] : []), ...d.lines];
    return (d.bom ? '\uFEFF' : '') + lines.map((l, i) => l + (i < lines.length - 1 || d.finalEol ? d.eols[i % 32] : '')).join('');
  });

describe('generated documents (fast-check)', () => {
  it('sections re-concatenate to the original bytes; headings start at their line and hold their text', () => {
    fc.assert(
      fc.property(shapeDoc, (s) => {
        const bytes = b(s);
        const p = parseMarkdown(bytes);
        expectContiguous(bytes, splitSections('x.md', bytes, p, 1));
        for (const h of p.headings) {
          expect(h.start).toBe(h.line === 1 && p.bom ? 3 : p.lineStarts[h.line - 1]);
          expect(h.end).toBeGreaterThan(h.start);
          const raw = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(h.start, h.end));
          for (const word of h.text.split(/\s+/).filter(Boolean)) expect(raw).toContain(word);
        }
      }),
      { numRuns: runs(1000) },
    );
  });

  it('line endings do not change the headings', () => {
    fc.assert(
      fc.property(shapeDoc, (s) => {
        const lf = heads(s.replace(/\r\n|\r/g, '\n'));
        expect(heads(s)).toEqual(lf);
      }),
      { numRuns: runs(1000) },
    );
  });

  it('random bytes never throw and still re-concatenate', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        const sections = splitSections('x.md', bytes, parseMarkdown(bytes), 1);
        expect(concat(bytes, sections).equals(Buffer.from(bytes))).toBe(true);
      }),
      { numRuns: runs(1000) },
    );
  });
});
