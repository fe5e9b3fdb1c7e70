/**
 * Proposed sections for unstructured text (a file without headings): blocks of text are grouped
 * by topic, using the same taxonomy as scope.ts.
 *
 * A block is a blank-line-separated paragraph, or one top-level item of a list that starts a
 * block; a fenced code block is never split (a blank line inside a fence is not a boundary).
 * Blank lines belong to the block before them, so the blocks tile the file. Bytes that are not
 * clearly about one topic (and the BOM and front matter) form the preamble, titled "General".
 *
 * Invariant: the ranges of all returned sections, sorted by start, cover [0, size) exactly.
 */
import type { ByteRange, ParsedMarkdown, Section } from './types.js';
import { classifyBlock } from './scope.js';
import { slugify } from './slug.js';

export const PREAMBLE_TITLE = 'General';

interface Block {
  start: number;
  end: number;
  topic: string | null;
  name: string | null;
}

const SP = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/** Start offsets of each line at or after `from`, and the file size as a sentinel. */
function lineStartsFrom(bytes: Uint8Array, from: number): number[] {
  const starts = [from];
  const n = bytes.length;
  for (let i = from; i < n; i++) {
    const b = bytes[i];
    if (b === LF) {
      if (i + 1 < n) starts.push(i + 1);
    } else if (b === CR) {
      if (bytes[i + 1] === LF) i++;
      if (i + 1 < n) starts.push(i + 1);
    }
  }
  return starts;
}

function isBlank(bytes: Uint8Array, s: number, e: number): boolean {
  for (let i = s; i < e; i++) {
    const b = bytes[i];
    if (b !== SP && b !== TAB && b !== CR && b !== LF) return false;
  }
  return true;
}

/** Leading spaces (a tab counts as 4), or -1 for more than 3 (indented code / nested content). */
function indentOf(bytes: Uint8Array, s: number, e: number): number {
  let n = 0;
  for (let i = s; i < e; i++) {
    const b = bytes[i];
    if (b === SP) n++;
    else if (b === TAB) n += 4;
    else break;
    if (n > 3) return -1;
  }
  return n;
}

/** A fence marker (``` or ~~~, three or more) at the line start after at most 3 spaces. */
function fenceAt(bytes: Uint8Array, s: number, e: number): { ch: number; len: number; rest: number } | null {
  const ind = indentOf(bytes, s, e);
  if (ind < 0) return null;
  const p = s + ind;
  const ch = bytes[p];
  if (ch !== 0x60 && ch !== 0x7e) return null;
  let q = p;
  while (q < e && bytes[q] === ch) q++;
  if (q - p < 3) return null;
  return { ch, len: q - p, rest: q };
}

function isFenceClose(bytes: Uint8Array, s: number, e: number, open: { ch: number; len: number }): boolean {
  const f = fenceAt(bytes, s, e);
  if (!f || f.ch !== open.ch || f.len < open.len) return false;
  return isBlank(bytes, f.rest, e);
}

/** `- `, `* `, `+ `, `1. `, `1) ` after at most 3 spaces: returns the indent, or -1. */
function listItemIndent(bytes: Uint8Array, s: number, e: number): number {
  const ind = indentOf(bytes, s, e);
  if (ind < 0) return -1;
  let p = s;
  while (p < e && (bytes[p] === SP || bytes[p] === TAB)) p++;
  const b = bytes[p];
  if (b === 0x2d || b === 0x2a || b === 0x2b) {
    const nx = bytes[p + 1];
    // `---` / `***` are thematic breaks, not items.
    return p + 1 >= e || nx === SP || nx === TAB || nx === CR || nx === LF ? ind : -1;
  }
  let q = p;
  while (q < e && q - p < 9 && (bytes[q] ?? 0) >= 0x30 && (bytes[q] ?? 0) <= 0x39) q++;
  if (q > p && (bytes[q] === 0x2e || bytes[q] === 0x29)) {
    const nx = bytes[q + 1];
    return q + 1 >= e || nx === SP || nx === TAB || nx === CR || nx === LF ? ind : -1;
  }
  return -1;
}

/** Split [from, size) into blocks (see the module comment). */
function splitBlocks(bytes: Uint8Array, from: number): Array<{ start: number; end: number }> {
  const size = bytes.length;
  if (from >= size) return [];
  const starts = lineStartsFrom(bytes, from);
  const blockStarts: number[] = [from];
  let fence: { ch: number; len: number } | null = null;
  let prevBlank = true;
  let seenContent = false;
  /** Indent of the list item that opened the current block, or -1 if it is not a list. */
  let listIndent = -1;
  for (let li = 0; li < starts.length; li++) {
    const s = starts[li]!;
    const e = li + 1 < starts.length ? starts[li + 1]! : size;
    if (fence) {
      if (isFenceClose(bytes, s, e, fence)) fence = null;
      continue;
    }
    if (isBlank(bytes, s, e)) {
      prevBlank = true;
      continue;
    }
    const item = listItemIndent(bytes, s, e);
    const ind = indentOf(bytes, s, e);
    // An indented paragraph after a blank line inside a list item continues that item.
    const continuation = listIndent >= 0 && item < 0 && (ind < 0 || ind > listIndent);
    if (seenContent && prevBlank && !continuation) {
      if (s !== blockStarts[blockStarts.length - 1]) blockStarts.push(s);
      listIndent = item;
    } else if (seenContent && item >= 0 && listIndent >= 0 && item <= listIndent) {
      blockStarts.push(s);
    } else if (!seenContent) {
      listIndent = item;
    }
    seenContent = true;
    prevBlank = false;
    const f = fenceAt(bytes, s, e);
    if (f) fence = { ch: f.ch, len: f.len };
  }
  const out: Array<{ start: number; end: number }> = [];
  for (let i = 0; i < blockStarts.length; i++) out.push({ start: blockStarts[i]!, end: i + 1 < blockStarts.length ? blockStarts[i + 1]! : size });
  return out;
}

function lineOf(lineStarts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function pushRange(ranges: ByteRange[], start: number, end: number): void {
  if (end <= start) return;
  const last = ranges[ranges.length - 1];
  if (last && last.end === start) last.end = end;
  else ranges.push({ start, end });
}

function sectionId(n: number, slug: string): string {
  return `s${String(n).padStart(2, '0')}-${slug}`;
}

export function proposeTopicSections(sourcePath: string, bytes: Uint8Array, parsed: ParsedMarkdown, firstIndex: number): Section[] {
  const size = bytes.length;
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lineStarts = lineStartsFrom(bytes, 0);
  const endLineOf = (r: ByteRange): number => lineOf(lineStarts, Math.max(r.start, r.end - 1));

  // The BOM and front matter always open the preamble.
  let bodyStart = parsed.bom && size >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  if (parsed.frontMatter && parsed.frontMatter.end > bodyStart && parsed.frontMatter.end <= size) bodyStart = parsed.frontMatter.end;

  const blocks: Block[] = splitBlocks(bytes, bodyStart).map((b) => {
    const t = classifyBlock(buf.toString('utf8', b.start, b.end));
    return { ...b, topic: t ? t.id : null, name: t ? t.name : null };
  });
  const topical = blocks.filter((b) => b.topic !== null).length;

  const whole = (): Section[] => [
    {
      id: sectionId(firstIndex, 'preamble'),
      sourcePath,
      title: PREAMBLE_TITLE,
      level: 0,
      ranges: [{ start: 0, end: size }],
      startLine: 1,
      endLine: endLineOf({ start: 0, end: size }),
      proposed: false,
      kind: 'preamble',
    },
  ];
  if (topical < 2) return whole();

  const preamble: ByteRange[] = [];
  pushRange(preamble, 0, bodyStart);
  const groups = new Map<string, { name: string; ranges: ByteRange[] }>();
  for (const b of blocks) {
    if (b.topic === null) {
      pushRange(preamble, b.start, b.end);
      continue;
    }
    let g = groups.get(b.topic);
    if (!g) {
      g = { name: b.name!, ranges: [] };
      groups.set(b.topic, g);
    }
    pushRange(g.ranges, b.start, b.end);
  }

  const drafts: Array<{ title: string; kind: 'preamble' | 'topic'; ranges: ByteRange[] }> = [];
  if (preamble.length) drafts.push({ title: PREAMBLE_TITLE, kind: 'preamble', ranges: preamble });
  for (const g of groups.values()) drafts.push({ title: g.name, kind: 'topic', ranges: g.ranges });
  drafts.sort((a, b) => a.ranges[0]!.start - b.ranges[0]!.start);

  return drafts.map((d, i) => ({
    id: sectionId(firstIndex + i, d.kind === 'preamble' ? 'preamble' : slugify(d.title)),
    sourcePath,
    title: d.title,
    level: 0,
    ranges: d.ranges,
    startLine: lineOf(lineStarts, d.ranges[0]!.start),
    endLine: endLineOf(d.ranges[d.ranges.length - 1]!),
    proposed: d.kind === 'topic',
    kind: d.kind,
  }));
}
