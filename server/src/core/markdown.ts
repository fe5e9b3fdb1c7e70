/**
 * Finds the top-level headings of a Markdown file and reports them with byte offsets into the
 * raw bytes, so that sections cut at those offsets give the file back byte for byte. Pure.
 *
 * The Markdown reading is markdown-it's block parser (`html: true`: HTML blocks as on GitHub):
 * a heading counts when markdown-it emits its `heading_open` at token level 0, i.e. outside
 * any block quote or list item. Its `token.map` line range is turned into bytes through a line
 * table built here on the raw bytes. What markdown-it does not know is handled around it:
 * - YAML front matter (`---` on the first line, after an optional BOM, up to a line `---` or
 *   `...`) is its own block, as on GitHub; markdown-it only sees the text after it (it would
 *   read it as a thematic break and a setext heading);
 * - a leading BOM belongs to no line's text (markdown-it would keep U+FEFF on line 1) but
 *   stays in the byte offsets;
 * - CRLF and CR-only line endings count as one line break each, as markdown-it normalises
 *   them, so its line numbers are the line table's and offsets still point into raw bytes.
 */
import MarkdownIt from 'markdown-it';
import type { Heading, LineEnding, ParsedMarkdown, Section } from './types.js';
import { slugify } from './slug.js';
import { utf8Text } from './utf8.js';

/** Block structure only: the inline rules (links, emphasis, typography) decide no heading. */
const md = new MarkdownIt({ html: true });
md.core.ruler.enableOnly(['normalize', 'block']);
// markdown-it's normalize replaces every line break (\n by \n too) and NUL, building a copy of the
// whole text; this gives the same text and copies it only when it has a CR or a NUL.
md.core.ruler.at('normalize', (state) => {
  let src = state.src;
  if (src.includes('\r')) src = src.replace(/\r\n?/g, '\n');
  if (src.includes('\0')) src = src.replace(/\0/g, '\uFFFD');
  state.src = src;
});

/** Drops a BOM at the very start of the file only (byte offsets still count its 3 bytes). */
const utf8 = new TextDecoder('utf-8');

const CH_LF = 0x0a;
const CH_CR = 0x0d;

/** A line (with its line break) that is `---` (or `...` when `allowDots`) and then only spaces and tabs. */
function isFrontMatterFence(bytes: Uint8Array, start: number, end: number, allowDots: boolean): boolean {
  if (end - start < 3) return false;
  const c = bytes[start];
  if (!(c === 0x2d || (allowDots && c === 0x2e))) return false;
  if (bytes[start + 1] !== c || bytes[start + 2] !== c) return false;
  for (let p = start + 3; p < end; p++) {
    const d = bytes[p];
    if (d !== 0x20 && d !== 0x09 && d !== CH_LF && d !== CH_CR) return false;
  }
  return true;
}

/**
 * Parse the block structure of a Markdown file. Offsets are into `bytes` (BOM included);
 * lines are 1-based in the result. A heading on line 1 of a file with a BOM starts after the
 * BOM (byte 3): the BOM stays with whatever precedes the first section.
 */
export function parseMarkdown(bytes: Uint8Array): ParsedMarkdown {
  const size = bytes.length;
  const bom = size >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const bomLen = bom ? 3 : 0;

  // The line table: where each line starts. CRLF is one line break, as for markdown-it.
  const lineStarts: number[] = size > 0 ? [0] : [];
  let lf = 0;
  let crlf = 0;
  let cr = 0;
  for (let i = bomLen; i < size; i++) {
    const c = bytes[i];
    if (c !== CH_LF && c !== CH_CR) continue;
    if (c === CH_LF) lf++;
    else if (bytes[i + 1] === CH_LF) {
      crlf++;
      i++;
    } else cr++;
    if (i + 1 < size) lineStarts.push(i + 1);
  }
  const kinds = (lf ? 1 : 0) + (crlf ? 1 : 0) + (cr ? 1 : 0);
  const lineEnding: LineEnding = kinds === 0 ? 'none' : kinds > 1 ? 'mixed' : lf ? 'lf' : crlf ? 'crlf' : 'cr';
  const lineByteStart = (line: number): number => (line === 0 ? bomLen : line < lineStarts.length ? lineStarts[line]! : size);

  // YAML front matter: `---` on the first line, closed by `---` or `...` on a later line.
  let frontMatter: ParsedMarkdown['frontMatter'] = null;
  let firstLine = 0;
  if (lineStarts.length > 1 && isFrontMatterFence(bytes, bomLen, lineStarts[1]!, false)) {
    for (let line = 1; line < lineStarts.length; line++) {
      if (isFrontMatterFence(bytes, lineStarts[line]!, lineByteStart(line + 1), true)) {
        firstLine = line + 1;
        const end = lineByteStart(firstLine);
        frontMatter = { start: 0, end, raw: utf8.decode(bytes.subarray(bomLen, end)) };
        break;
      }
    }
  }

  // The whole text, decoded once for analyze and buildPlan (core/utf8.ts); a BOM is no line's text.
  const whole = utf8Text(bytes);
  const text = bom ? whole.slice(1) : whole;
  const tokens = md.parse(frontMatter ? text.slice(frontMatter.raw.length) : text, {});
  const headings: Heading[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.type !== 'heading_open' || t.level !== 0 || !t.map) continue;
    const style = t.markup === '=' || t.markup === '-' ? 'setext' : 'atx';
    let text = tokens[i + 1]?.content ?? '';
    if (style === 'setext') text = text.replace(/[ \t]*\n[ \t]*/g, ' ');
    const [from, to] = [t.map[0] + firstLine, t.map[1] + firstLine];
    headings.push({ level: Number(t.tag.slice(1)), text, style, start: lineByteStart(from), end: lineByteStart(to), line: from + 1 });
  }

  return { bom, lineEnding, frontMatter, headings, lineStarts, size, text };
}

/**
 * `s<NN>-<slug>`: NN zero-padded to 2 digits (3 from 100); the slug is core/slug.ts's
 * (lowercase ASCII `[a-z0-9-]`, at most 40 characters, `section` when nothing is left).
 */
export function sectionId(index: number, title: string): string {
  return `s${String(index).padStart(index >= 100 ? 3 : 2, '0')}-${slugify(title, 40)}`;
}

/** 1-based line of a byte offset (the line whose start is the last one <= offset). */
export function lineOfOffset(lineStarts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = lineStarts.length - 1;
  if (hi < 0) return 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/**
 * The heading level the document is split at, or 0 when it has no heading. A file that opens with
 * level-1 headings before any deeper one, all but the last without text under them (`# Copilot
 * Instructions`, then `# Acme – Coding Standards`), has a title: it is split at level 2.
 */
export function splitLevel(headings: readonly Heading[], bytes: Uint8Array): number {
  if (!headings.length) return 0;
  const firstDeeper = headings.findIndex((h) => h.level > 1);
  const titleLines = headings.slice(0, Math.max(firstDeeper - 1, 0)).every((h, i) => isBlank(bytes, h.end, headings[i + 1]!.start));
  if (firstDeeper > 0 && titleLines && headings.slice(firstDeeper).every((h) => h.level > 1) && headings.some((h) => h.level === 2)) return 2;
  return Math.min(...headings.map((h) => h.level));
}

/** Whether bytes [from, to) are only spaces, tabs and line endings. */
function isBlank(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (bytes[i] !== 0x20 && bytes[i] !== 0x09 && bytes[i] !== 0x0a && bytes[i] !== 0x0d) return false;
  return true;
}

/**
 * Cut a parsed file into contiguous sections that cover every byte exactly once:
 * [front matter] [preamble] heading sections at the split level (see splitLevel), deeper
 * headings staying inside their parent. Concatenating the ranges gives back `bytes`.
 */
export function splitSections(sourcePath: string, bytes: Uint8Array, parsed: ParsedMarkdown, firstIndex: number): Section[] {
  const size = bytes.length;
  const level = splitLevel(parsed.headings, bytes);
  const cuts = parsed.headings.filter((h) => h.level === level);
  const parts: Array<{ start: number; end: number; title: string; level: number; kind: Section['kind'] }> = [];
  let pos = 0;
  if (parsed.frontMatter) {
    parts.push({ start: 0, end: parsed.frontMatter.end, title: 'Front matter', level: 0, kind: 'frontmatter' });
    pos = parsed.frontMatter.end;
  }
  const firstCut = cuts.length ? cuts[0]!.start : size;
  if (firstCut > pos) parts.push({ start: pos, end: firstCut, title: 'Preamble', level: 0, kind: 'preamble' });
  cuts.forEach((h, i) => {
    const end = i + 1 < cuts.length ? cuts[i + 1]!.start : size;
    parts.push({ start: h.start, end, title: h.text, level: h.level, kind: 'heading' });
  });
  return parts.map((p, i) => ({
    id: sectionId(firstIndex + i, p.title),
    sourcePath,
    title: p.title,
    level: p.level,
    ranges: [{ start: p.start, end: p.end }],
    startLine: lineOfOffset(parsed.lineStarts, p.start),
    endLine: lineOfOffset(parsed.lineStarts, Math.max(p.start, p.end - 1)),
    proposed: false,
    kind: p.kind,
  }));
}
