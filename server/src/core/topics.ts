/**
 * Proposed sections for unstructured text (a file without headings): blocks of text are grouped
 * by topic, using the taxonomy of taxonomy.ts.
 *
 * A block is a blank-line-separated paragraph, or one top-level item of a list that starts a
 * block; a fenced code block is never split (a blank line inside a fence is not a boundary) and
 * stays with the text before it, which it illustrates. A list that follows a paragraph line
 * directly still gives one block per top-level item. Text where fewer than half of the blocks
 * name a topic stays whole (one "General" section). Blank lines belong to the block before
 * them, so the blocks tile the file. Bytes that are not clearly about one topic (and the BOM and
 * front matter) form the preamble, titled "General".
 *
 * Invariant: the ranges of all returned sections, sorted by start, cover [0, size) exactly.
 *
 * Cost: one pass over the bytes for lines and blocks, one keyword scan over the whole body
 * (decoded as latin1, so string offsets are byte offsets; every keyword is ASCII), no string
 * per block.
 */
import type { ByteRange, ParsedMarkdown, Section } from './types.js';
import { type TopicScore, decideBlock, forEachKeyword, labelTopic, scoreFenceInfo, scoreKeyword } from './keywords.js';
import type { Topic } from './taxonomy.js';
import { slugify } from './slug.js';

export const PREAMBLE_TITLE = 'General';

const SP = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/** Start offset of every line (line n, 1-based, starts at starts[n-1]). LF, CRLF and CR all end a line. */
function lineStartsOf(buf: Buffer): number[] {
  const n = buf.length;
  const starts = [0];
  for (let i = 0; i < n; i++) {
    const b = buf[i];
    if (b === LF) {
      if (i + 1 < n) starts.push(i + 1);
    } else if (b === CR) {
      if (buf[i + 1] === LF) i++;
      if (i + 1 < n) starts.push(i + 1);
    }
  }
  return starts;
}

function lineOf(starts: ArrayLike<number>, offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
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

/**
 * A fence marker (``` or ~~~, three or more) after any indentation: a fence nested in a list item
 * is indented further than 3 spaces, and a blank line inside it must not split the block either.
 * Recognising too many fences only means fewer splits, never a split inside a fence.
 */
function fenceAt(bytes: Uint8Array, s: number, e: number): { ch: number; len: number; rest: number } | null {
  let p = s;
  while (p < e && (bytes[p] === SP || bytes[p] === TAB)) p++;
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
  const spaceAfter = (i: number): boolean => i >= e || bytes[i] === SP || bytes[i] === TAB || bytes[i] === CR || bytes[i] === LF;
  // `---` / `***` are thematic breaks, not items: the marker must be followed by a space.
  if (b === 0x2d || b === 0x2a || b === 0x2b) return spaceAfter(p + 1) ? ind : -1;
  let q = p;
  while (q < e && q - p < 9 && (bytes[q] ?? 0) >= 0x30 && (bytes[q] ?? 0) <= 0x39) q++;
  if (q > p && (bytes[q] === 0x2e || bytes[q] === 0x29)) return spaceAfter(q + 1) ? ind : -1;
  return -1;
}

/** Whether a line may be a label (`Testing:`, `**Python**`): has `:`, `**` or `__` in its first 200 bytes. */
function mayBeLabel(bytes: Uint8Array, s: number, e: number): boolean {
  const end = Math.min(e, s + 200);
  for (let i = s; i < end; i++) {
    const b = bytes[i];
    if (b === 0x3a) return true;
    if ((b === 0x2a || b === 0x5f) && bytes[i + 1] === b) return true;
  }
  return false;
}

interface Blocks {
  /** Block i is [start[i], start[i+1]) (the last one ends at the file's end). */
  start: number[];
  /** A block's first non-blank line, when it may be a label; -1 otherwise. */
  labelStart: number[];
  labelEnd: number[];
  /** Fenced code, [start, end) from the opening line to the end of the closing line: not prose. */
  fenceStart: number[];
  fenceEnd: number[];
  /** Lower-cased fence info strings (```ts -> "ts") and the block each belongs to. */
  infos: Array<{ block: number; info: string }>;
}

/** Whether the current block opens with a label line that names a topic (`Testing:`). */
function introLabelsTopic(bytes: Uint8Array, b: Blocks): boolean {
  const i = b.start.length - 1;
  const ls = b.labelStart[i]!;
  if (ls < 0) return false;
  const line = Buffer.from(bytes.buffer, bytes.byteOffset + ls, Math.min(b.labelEnd[i]!, ls + 200) - ls).toString('latin1');
  return labelTopic(line.replace(/[\r\n]+$/, '')) !== null;
}

/** Split [from, size) into blocks (see the module comment) and find its fenced code. */
function splitBlocks(bytes: Uint8Array, lines: ArrayLike<number>, from: number): Blocks {
  const size = bytes.length;
  const out: Blocks = { start: [], labelStart: [], labelEnd: [], fenceStart: [], fenceEnd: [], infos: [] };
  if (from >= size) return out;
  let fence: { ch: number; len: number } | null = null;
  let prevBlank = true;
  let hasContent = false;
  /** Indent of the list item that opened the current block, or -1 if it is not a list. */
  let listIndent = -1;
  const open = (s: number, e: number, item: number): void => {
    out.start.push(s);
    const label = mayBeLabel(bytes, s, e);
    out.labelStart.push(label ? s : -1);
    out.labelEnd.push(label ? e : -1);
    listIndent = item;
  };
  out.start.push(from);
  out.labelStart.push(-1);
  out.labelEnd.push(-1);
  let li = lineOf(lines, from) - 1;
  for (; li < lines.length; li++) {
    const s = Math.max(lines[li]!, from);
    const e = li + 1 < lines.length ? lines[li + 1]! : size;
    if (fence) {
      if (isFenceClose(bytes, s, e, fence)) {
        out.fenceEnd[out.fenceEnd.length - 1] = e;
        fence = null;
      }
      continue;
    }
    if (isBlank(bytes, s, e)) {
      prevBlank = true;
      continue;
    }
    const f = fenceAt(bytes, s, e);
    const item = f ? -1 : listItemIndent(bytes, s, e);
    if (!hasContent) {
      hasContent = true;
      const label = mayBeLabel(bytes, s, e);
      out.labelStart[0] = label ? s : -1;
      out.labelEnd[0] = label ? e : -1;
      listIndent = item;
    } else if (prevBlank && !f) {
      // An indented paragraph after a blank line inside a list item continues that item.
      const ind = indentOf(bytes, s, e);
      const continuation = listIndent >= 0 && item < 0 && (ind < 0 || ind > listIndent);
      if (!continuation) open(s, e, item);
    } else if (!prevBlank && item >= 0 && listIndent >= 0 && item <= listIndent) {
      open(s, e, item);
    } else if (!prevBlank && item === 0 && listIndent < 0 && !introLabelsTopic(bytes, out)) {
      // A list right after a paragraph line gives one block per item, unless that line is a
      // topic label (`Testing:`) that the list belongs to.
      open(s, e, item);
    }
    prevBlank = false;
    if (f) {
      out.fenceStart.push(s);
      out.fenceEnd.push(size); // until closed
      fence = { ch: f.ch, len: f.len };
      let q = f.rest;
      while (q < e && (bytes[q] === SP || bytes[q] === TAB)) q++;
      let info = '';
      for (let i = q; i < e && i - q < 32; i++) {
        const b = bytes[i]!;
        if (b === SP || b === TAB || b === CR || b === LF || b === 0x7b /* { */) break;
        info += String.fromCharCode(b >= 0x41 && b <= 0x5a ? b + 32 : b);
      }
      if (info) out.infos.push({ block: out.start.length - 1, info });
    }
  }
  return out;
}

/**
 * Classify every block. One keyword scan over the whole body; hits arrive in position order, so
 * blocks and fences are walked with moving cursors.
 */
function classifyBlocks(buf: Buffer, from: number, b: Blocks): Array<Topic | null> {
  const n = b.start.length;
  const topics: Array<Topic | null> = new Array(n).fill(null);
  const scores = new Map<number, TopicScore>();
  let block = 0;
  let fence = 0;
  let info = 0;
  const endOf = (i: number): number => (i + 1 < n ? b.start[i + 1]! : buf.length);
  const finish = (i: number): void => {
    while (info < b.infos.length && b.infos[info]!.block === i) scoreFenceInfo(scores, b.infos[info++]!.info);
    let t: Topic | null = null;
    const ls = b.labelStart[i]!;
    if (ls >= 0) t = labelTopic(buf.toString('latin1', ls, Math.min(b.labelEnd[i]!, ls + 200)).replace(/[\r\n]+$/, ''));
    topics[i] = t ?? (scores.size ? decideBlock(scores, endOf(i) - b.start[i]!) : null);
    scores.clear();
  };
  const lower = buf.toString('latin1', from, buf.length).toLowerCase();
  forEachKeyword(lower, (index, kw) => {
    const pos = from + index;
    while (fence < b.fenceStart.length && b.fenceEnd[fence]! <= pos) fence++;
    if (fence < b.fenceStart.length && b.fenceStart[fence]! <= pos) return; // inside fenced code
    while (block < n && endOf(block) <= pos) finish(block++);
    if (block < n) scoreKeyword(scores, kw);
  });
  while (block < n) finish(block++);
  return topics;
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
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lines = lineStartsOf(buf);
  const endLineOf = (r: ByteRange): number => lineOf(lines, Math.max(r.start, r.end - 1));

  // The BOM and front matter always open the preamble.
  let bodyStart = parsed.bom && size >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  if (parsed.frontMatter && parsed.frontMatter.end > bodyStart && parsed.frontMatter.end <= size) bodyStart = parsed.frontMatter.end;

  const blocks = splitBlocks(bytes, lines, bodyStart);
  const topics = classifyBlocks(buf, bodyStart, blocks);
  let topical = 0;
  for (const t of topics) if (t) topical++;

  // Mostly general text with a few topical lines stays whole: split, it would scatter its rules.
  if (topical < 2 || topical * 2 < topics.length) {
    return [
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
  }

  const preamble: ByteRange[] = [];
  pushRange(preamble, 0, bodyStart);
  const groups = new Map<string, { name: string; ranges: ByteRange[] }>();
  const n = blocks.start.length;
  for (let i = 0; i < n; i++) {
    const start = blocks.start[i]!;
    const end = i + 1 < n ? blocks.start[i + 1]! : size;
    const t = topics[i];
    if (!t) {
      pushRange(preamble, start, end);
      continue;
    }
    let g = groups.get(t.id);
    if (!g) {
      g = { name: t.name, ranges: [] };
      groups.set(t.id, g);
    }
    pushRange(g.ranges, start, end);
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
    startLine: lineOf(lines, d.ranges[0]!.start),
    endLine: endLineOf(d.ranges[d.ranges.length - 1]!),
    proposed: d.kind === 'topic',
    kind: d.kind,
  }));
}
