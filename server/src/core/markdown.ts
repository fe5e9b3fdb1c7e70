/**
 * A purpose-built CommonMark block scanner: finds the top-level headings of a Markdown file
 * and reports them with byte offsets into the raw bytes. Pure, no I/O.
 *
 * Reference behaviour: markdown-it 14 (`new MarkdownIt({ html: true })`, i.e. the default
 * preset with GFM tables, plus HTML blocks as on GitHub). Its block rules (table, indented
 * code, fence, block quote, thematic break, list, link reference definition, HTML block, ATX
 * heading, setext heading, paragraph) are ported here rule for rule, including the quirks
 * that decide where a container ends (lazy continuation, "hard termination" of block quotes,
 * list markers that may or may not interrupt a paragraph). A heading counts only when
 * markdown-it would emit its `heading_open` at token level 0, i.e. outside any block quote
 * or list item. The differential tests (test/unit/markdown-diff.test.ts) hold the two
 * parsers to the same answer on the corpus and on generated documents.
 *
 * What is different from markdown-it, on purpose:
 * - it works on bytes (UTF-8; multi-byte sequences never contain ASCII bytes, so every
 *   structural test is the same) and creates no tokens and no inline content: only the
 *   text of the headings found is decoded;
 * - YAML front matter (`---` on the first line, after an optional BOM, up to a line `---`
 *   or `...`) is recognised and skipped, as GitHub does; markdown-it would read it as a
 *   thematic break and a setext heading;
 * - a leading BOM is skipped (markdown-it would keep U+FEFF as text on line 1);
 * - CRLF and CR-only line endings are normalised in a private copy (markdown-it normalises
 *   them too), so line numbers agree and byte offsets still point into the raw bytes.
 *
 * Known, documented approximations (inside link reference definitions only, which matter
 * only if one is directly followed by a setext underline): named HTML entities in a link
 * destination are decoded only for the few that can change the `javascript:`-style scheme
 * check (`&colon;` and the whitespace entities).
 */
import type { Heading, LineEnding, ParsedMarkdown, Section } from './types.js';
import { slugify } from './slug.js';

const MAX_NESTING = 100; // markdown-it default preset `maxNesting`

const enum Parent {
  Root,
  Blockquote,
  List,
  Paragraph,
  Reference,
  Table,
}

const CH_TAB = 0x09;
const CH_LF = 0x0a;
const CH_CR = 0x0d;
const CH_SPACE = 0x20;

const utf8 = new TextDecoder('utf-8');

function isSpace(c: number | undefined): boolean {
  return c === CH_SPACE || c === CH_TAB;
}

/** White space as JavaScript's String.prototype.trim and `\s` see it. */
function isJsWhitespaceCodePoint(cp: number): boolean {
  if (cp <= 0x20) return cp === 0x20 || (cp >= 0x09 && cp <= 0x0d);
  if (cp < 0xa0) return false;
  return (
    cp === 0xa0 ||
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000 ||
    cp === 0xfeff
  );
}

/** Byte length of the code point decoded by the last codePointAt call (avoids allocating tuples). */
let cpLen = 1;

/** Decode one UTF-8 code point at `pos` (length in `cpLen`). Invalid bytes decode as U+FFFD, length 1. */
function codePointAt(src: Uint8Array, pos: number, end: number): number {
  const b0 = src[pos]!;
  if (b0 < 0x80) {
    cpLen = 1;
    return b0;
  }
  if (b0 >= 0xc2 && b0 < 0xe0 && pos + 1 < end) {
    cpLen = 2;
    return ((b0 & 0x1f) << 6) | (src[pos + 1]! & 0x3f);
  }
  if (b0 >= 0xe0 && b0 < 0xf0 && pos + 2 < end) {
    cpLen = 3;
    return ((b0 & 0x0f) << 12) | ((src[pos + 1]! & 0x3f) << 6) | (src[pos + 2]! & 0x3f);
  }
  if (b0 >= 0xf0 && b0 < 0xf5 && pos + 3 < end) {
    cpLen = 4;
    return 0x10000; // astral: never white space
  }
  cpLen = 1;
  return 0xfffd;
}

/** Start of the last code point that ends at `end` (exclusive). */
function prevCodePointStart(src: Uint8Array, end: number, min: number): number {
  let p = end - 1;
  while (p > min && (src[p]! & 0xc0) === 0x80 && end - p < 4) p--;
  return p;
}

/** Result of the last jsTrim call. */
let trimStart = 0;
let trimEnd = 0;

/** The range after JavaScript `.trim()` (Unicode white space), on bytes; result in trimStart/trimEnd. */
function jsTrim(src: Uint8Array, start: number, end: number): void {
  while (start < end) {
    const c = src[start]!;
    if (c < 0x80) {
      if (c === CH_SPACE || (c >= 0x09 && c <= 0x0d)) {
        start++;
        continue;
      }
      break;
    }
    const cp = codePointAt(src, start, end);
    if (!isJsWhitespaceCodePoint(cp)) break;
    start += cpLen;
  }
  while (end > start) {
    const c = src[end - 1]!;
    if (c < 0x80) {
      if (c === CH_SPACE || (c >= 0x09 && c <= 0x0d)) {
        end--;
        continue;
      }
      break;
    }
    const p = prevCodePointStart(src, end, start);
    const cp = codePointAt(src, p, end);
    if (p + cpLen !== end || !isJsWhitespaceCodePoint(cp)) break;
    end = p;
  }
  trimStart = start;
  trimEnd = end;
}

/** markdown-it's asciiTrim: only space, tab, LF and CR are trimmed. */
function asciiTrim(src: Uint8Array, start: number, end: number): [number, number] {
  while (start < end) {
    const c = src[start]!;
    if (c !== CH_SPACE && c !== CH_TAB && c !== CH_LF && c !== CH_CR) break;
    start++;
  }
  while (end > start) {
    const c = src[end - 1]!;
    if (c !== CH_SPACE && c !== CH_TAB && c !== CH_LF && c !== CH_CR) break;
    end--;
  }
  return [start, end];
}

/** UTF-16 code units taken by a UTF-8 byte (continuation bytes add none). */
function utf16Units(b: number | undefined): number {
  if (b === undefined) return 1;
  if ((b & 0xc0) === 0x80) return 0;
  return b >= 0xf0 ? 2 : 1;
}

/** Decode bytes the way markdown-it sees the text (NUL is replaced by U+FFFD). */
function decode(src: Uint8Array, start: number, end: number): string {
  const s = utf8.decode(src.subarray(start, end));
  return s.includes('\0') ? s.replace(/\0/g, '\uFFFD') : s;
}

// ---------------------------------------------------------------------------------------
// HTML blocks (CommonMark 0.31 §4.6 as implemented by markdown-it/lib/rules_block/html_block)

const HTML_BLOCK_NAMES = [
  'address', 'article', 'aside', 'base', 'basefont', 'blockquote', 'body', 'caption', 'center', 'col', 'colgroup', 'dd',
  'details', 'dialog', 'dir', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'frame', 'frameset',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'head', 'header', 'hr', 'html', 'iframe', 'legend', 'li', 'link', 'main', 'menu',
  'menuitem', 'nav', 'noframes', 'ol', 'optgroup', 'option', 'p', 'param', 'search', 'section', 'summary', 'table', 'tbody',
  'td', 'tfoot', 'th', 'thead', 'title', 'tr', 'track', 'ul',
];
const ATTR_NAME = '[a-zA-Z_:][a-zA-Z0-9:._-]*';
const ATTR_VALUE = `(?:[^"'=<>\`\\x00-\\x20]+|'[^']*'|"[^"]*")`;
const ATTRIBUTE = `(?:\\s+${ATTR_NAME}(?:\\s*=\\s*${ATTR_VALUE})?)`;
const OPEN_TAG = `<[A-Za-z][A-Za-z0-9\\-]*${ATTRIBUTE}*\\s*\\/?>`;
const CLOSE_TAG = '<\\/[A-Za-z][A-Za-z0-9\\-]*\\s*>';

/** Openers of the seven kinds, in markdown-it's order; `interrupts` = may end a paragraph. */
const HTML_OPENERS: ReadonlyArray<{ re: RegExp; interrupts: boolean }> = [
  { re: /^<(script|pre|style|textarea)(?=(\s|>|$))/i, interrupts: true },
  { re: /^<!--/, interrupts: true },
  { re: /^<\?/, interrupts: true },
  { re: /^<![A-Za-z]/, interrupts: true },
  { re: /^<!\[CDATA\[/, interrupts: true },
  { re: new RegExp(`^</?(${HTML_BLOCK_NAMES.join('|')})(?=(\\s|/?>|$))`, 'i'), interrupts: true },
  { re: new RegExp(`^(?:${OPEN_TAG}|${CLOSE_TAG})\\s*$`), interrupts: false },
];

/** Does line [pos, max) contain the closing sequence of HTML block kind 0..4? (ASCII patterns: a byte search is exact.) */
function htmlCloses(src: Uint8Array, kind: number, pos: number, max: number): boolean {
  switch (kind) {
    case 0: {
      // /<\/(script|pre|style|textarea)>/i
      for (let p = pos; p + 1 < max; p++) {
        if (src[p] !== 0x3c || src[p + 1] !== 0x2f) continue;
        for (const name of ['script', 'pre', 'style', 'textarea']) {
          if (p + 2 + name.length >= max) continue;
          let ok = true;
          for (let k = 0; k < name.length; k++) {
            if ((src[p + 2 + k]! | 0x20) !== name.charCodeAt(k)) {
              ok = false;
              break;
            }
          }
          if (ok && src[p + 2 + name.length] === 0x3e) return true;
        }
      }
      return false;
    }
    case 1:
      return findAscii(src, pos, max, '-->');
    case 2:
      return findAscii(src, pos, max, '?>');
    case 3:
      return findAscii(src, pos, max, '>');
    default:
      return findAscii(src, pos, max, ']]>');
  }
}

function findAscii(src: Uint8Array, pos: number, max: number, needle: string): boolean {
  const n = needle.length;
  const first = needle.charCodeAt(0);
  outer: for (let p = pos; p + n <= max; p++) {
    if (src[p] !== first) continue;
    for (let k = 1; k < n; k++) if (src[p + k] !== needle.charCodeAt(k)) continue outer;
    return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------
// Link destinations in reference definitions: markdown-it refuses `javascript:` & co.

const BAD_PROTO_RE = /^(vbscript|javascript|file|data):/;
const GOOD_DATA_RE = /^data:image\/(gif|png|jpeg|webp);/;
const NAMED_ENTITIES: Record<string, string> = {
  colon: ':', Tab: '\t', NewLine: '\n', nbsp: '\u00a0', NonBreakingSpace: '\u00a0', ensp: '\u2002', emsp: '\u2003',
  emsp13: '\u2004', emsp14: '\u2005', numsp: '\u2007', puncsp: '\u2008', thinsp: '\u2009', ThinSpace: '\u2009',
  hairsp: '\u200a', VeryThinSpace: '\u200a', MediumSpace: '\u205f',
};

function isValidEntityCode(c: number): boolean {
  if (c >= 0xd800 && c <= 0xdfff) return false;
  if (c >= 0xfdd0 && c <= 0xfdef) return false;
  if ((c & 0xffff) === 0xffff || (c & 0xffff) === 0xfffe) return false;
  if (c >= 0x00 && c <= 0x08) return false;
  if (c === 0x0b) return false;
  if (c >= 0x0e && c <= 0x1f) return false;
  if (c >= 0x7f && c <= 0x9f) return false;
  return c <= 0x10ffff;
}

function unescapeAll(str: string): string {
  if (str.indexOf('\\') < 0 && str.indexOf('&') < 0) return str;
  return str.replace(/\\([!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~])|&([a-z#][a-z0-9]{1,31});/gi, (match, escaped: string | undefined, entity: string | undefined) => {
    if (escaped) return escaped;
    const name = entity ?? '';
    if (name.charCodeAt(0) === 0x23) {
      const m = /^#((?:x[a-f0-9]{1,8}|[0-9]{1,8}))$/i.exec(name);
      if (m) {
        const code = name[1]!.toLowerCase() === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return isValidEntityCode(code) ? String.fromCodePoint(code) : match;
      }
      return match;
    }
    return NAMED_ENTITIES[name] ?? match;
  });
}

/** markdown-it's validateLink(normalizeLink(url)), reduced to what decides the answer: the scheme. */
function isAllowedLink(raw: string): boolean {
  const str = unescapeAll(raw).trim().toLowerCase();
  return BAD_PROTO_RE.test(str) ? GOOD_DATA_RE.test(str) : true;
}

// ---------------------------------------------------------------------------------------

interface RawHeading {
  level: number;
  style: 'atx' | 'setext';
  /** First and last+1 line (0-based) of the heading. */
  startLine: number;
  endLine: number;
  /** Text bytes in the normalised source, before trimming. */
  textStart: number;
  textEnd: number;
}

interface TitleState {
  ok: boolean;
  canContinue: boolean;
  pos: number;
  strLen: number;
  marker: number;
}

/**
 * Port of markdown-it's StateBlock + ParserBlock over a byte array. Field and rule names
 * follow markdown-it so the two can be read side by side.
 */
class BlockScanner {
  readonly src: Uint8Array;
  readonly bMarks: Int32Array;
  readonly eMarks: Int32Array;
  readonly tShift: Int32Array;
  readonly sCount: Int32Array;
  readonly bsCount: Int32Array;
  /** Start of every line (`lineCount` of them), including a last line of white space only that markdown-it leaves out. */
  readonly starts: Int32Array;
  readonly lineCount: number;
  /** Number of line breaks. */
  readonly newlines: number;
  blkIndent = 0;
  line = 0;
  lineMax: number;
  listIndent = -1;
  parentType: Parent = Parent.Root;
  level = 0;
  readonly headings: RawHeading[] = [];

  constructor(src: Uint8Array) {
    this.src = src;
    const len = src.length;
    // Buffer#indexOf is a memchr: much faster than a byte loop or Uint8Array#indexOf.
    const buf = Buffer.from(src.buffer, src.byteOffset, src.byteLength);
    // Typed arrays grown by doubling: far cheaper than pushing onto plain arrays.
    let cap = Math.max(16, len >> 5);
    let bMarks: Int32Array = new Int32Array(cap);
    let eMarks: Int32Array = new Int32Array(cap);
    let tShift: Int32Array = new Int32Array(cap);
    let sCount: Int32Array = new Int32Array(cap);
    let starts: Int32Array = new Int32Array(cap);
    let n = 0;
    let lines = 0;
    let newlines = 0;
    let pos = 0;
    while (pos < len) {
      if (lines + 2 >= cap) {
        cap *= 2;
        const grow = (a: Int32Array): Int32Array => {
          const x = new Int32Array(cap);
          x.set(a);
          return x;
        };
        bMarks = grow(bMarks);
        eMarks = grow(eMarks);
        tShift = grow(tShift);
        sCount = grow(sCount);
        starts = grow(starts);
      }
      starts[lines++] = pos;
      let p = pos;
      let offset = 0;
      for (; p < len; p++) {
        const c = src[p];
        if (c === CH_SPACE) offset++;
        else if (c === CH_TAB) offset += 4 - (offset % 4);
        else break;
      }
      const nl = p >= len ? -1 : src[p] === CH_LF ? p : buf.indexOf(CH_LF, p);
      const end = nl < 0 ? len : nl;
      // markdown-it never records a last, unterminated line made only of spaces/tabs.
      if (nl < 0 && p === end) break;
      bMarks[n] = pos;
      eMarks[n] = end;
      tShift[n] = p - pos;
      sCount[n] = offset;
      n++;
      if (nl < 0) break;
      newlines++;
      pos = nl + 1;
    }
    // the fake line after the last one
    bMarks[n] = len;
    eMarks[n] = len;
    this.bMarks = bMarks;
    this.eMarks = eMarks;
    this.tShift = tShift;
    this.sCount = sCount;
    this.bsCount = new Int32Array(n + 1);
    this.starts = starts;
    this.lineCount = lines;
    this.newlines = newlines;
    this.lineMax = n;
  }

  isEmpty(line: number): boolean {
    return this.bMarks[line]! + this.tShift[line]! >= this.eMarks[line]!;
  }

  skipEmptyLines(from: number): number {
    for (const max = this.lineMax; from < max; from++) {
      if (this.bMarks[from]! + this.tShift[from]! < this.eMarks[from]!) break;
    }
    return from;
  }

  skipSpaces(pos: number): number {
    const src = this.src;
    for (const max = src.length; pos < max; pos++) {
      const c = src[pos];
      if (c !== CH_SPACE && c !== CH_TAB) break;
    }
    return pos;
  }

  skipSpacesBack(pos: number, min: number): number {
    if (pos <= min) return pos;
    while (pos > min) if (!isSpace(this.src[--pos])) return pos + 1;
    return pos;
  }

  skipChars(pos: number, code: number): number {
    const src = this.src;
    for (const max = src.length; pos < max; pos++) if (src[pos] !== code) break;
    return pos;
  }

  skipCharsBack(pos: number, code: number, min: number): number {
    if (pos <= min) return pos;
    while (pos > min) if (code !== this.src[--pos]) return pos + 1;
    return pos;
  }

  // ---- parser_block.tokenize -------------------------------------------------------

  tokenize(startLine: number, endLine: number): void {
    let line = startLine;
    while (line < endLine) {
      this.line = line = this.skipEmptyLines(line);
      if (line >= endLine) break;
      if (this.sCount[line]! < this.blkIndent) break;
      if (this.level >= MAX_NESTING) {
        this.line = endLine;
        break;
      }
      if (
        !(
          this.table(line, endLine, false) ||
          this.code(line, endLine) ||
          this.fence(line, endLine, false) ||
          this.blockquote(line, endLine, false) ||
          this.hr(line, false) ||
          this.list(line, endLine, false) ||
          this.reference(line, false) ||
          this.htmlBlock(line, endLine, false) ||
          this.heading(line, false) ||
          this.lheading(line, endLine)
        )
      ) {
        this.paragraph(line, endLine);
      }
      line = this.line;
      if (line < endLine && this.isEmpty(line)) {
        line++;
        this.line = line;
      }
    }
  }

  /** Rules whose `alt` includes 'paragraph' (and, identically, 'reference'). */
  terminatesParagraph(line: number, endLine: number): boolean {
    return (
      this.table(line, endLine, true) ||
      this.fence(line, endLine, true) ||
      this.blockquote(line, endLine, true) ||
      this.hr(line, true) ||
      this.list(line, endLine, true) ||
      this.htmlBlock(line, endLine, true) ||
      this.heading(line, true)
    );
  }

  /** Rules whose `alt` includes 'blockquote' (also used by tables). */
  terminatesBlockquote(line: number, endLine: number): boolean {
    return (
      this.fence(line, endLine, true) ||
      this.blockquote(line, endLine, true) ||
      this.hr(line, true) ||
      this.list(line, endLine, true) ||
      this.htmlBlock(line, endLine, true) ||
      this.heading(line, true)
    );
  }

  /** Rules whose `alt` includes 'list'. */
  terminatesList(line: number, endLine: number): boolean {
    return this.fence(line, endLine, true) || this.blockquote(line, endLine, true) || this.hr(line, true);
  }

  // ---- rules_block/table -----------------------------------------------------------

  /** Number of cells of a table row as markdown-it's escapedSplit + shift/pop of empty ends counts them. */
  rowCells(start: number, end: number): number {
    const src = this.src;
    let n = 1;
    for (let p = start; p < end; p++) if (src[p] === 0x7c && (p === start || src[p - 1] !== 0x5c)) n++;
    if (src[start] === 0x7c) n--;
    if (n > 0 && src[end - 1] === 0x7c && !(end - 1 > start && src[end - 2] === 0x5c)) n--;
    return n;
  }

  table(startLine: number, endLine: number, silent: boolean): boolean {
    if (startLine + 2 > endLine) return false;
    const src = this.src;
    let nextLine = startLine + 1;
    if (this.sCount[nextLine]! < this.blkIndent) return false;
    if (this.sCount[nextLine]! - this.blkIndent >= 4) return false;

    let pos = this.bMarks[nextLine]! + this.tShift[nextLine]!;
    const eNext = this.eMarks[nextLine]!;
    if (pos >= eNext) return false;
    const firstCh = src[pos++]!;
    if (firstCh !== 0x7c && firstCh !== 0x2d && firstCh !== 0x3a) return false;
    if (pos >= eNext) return false;
    const secondCh = src[pos++]!;
    if (secondCh !== 0x7c && secondCh !== 0x2d && secondCh !== 0x3a && !isSpace(secondCh)) return false;
    if (firstCh === 0x2d && isSpace(secondCh)) return false;
    while (pos < eNext) {
      const ch = src[pos]!;
      if (ch !== 0x7c && ch !== 0x2d && ch !== 0x3a && !isSpace(ch)) return false;
      pos++;
    }

    // Delimiter row: split on '|', every inner cell must match /^:?-+:?$/ after trimming.
    const dStart = this.bMarks[nextLine]! + this.tShift[nextLine]!;
    let aligns = 0;
    let cellStart = dStart;
    let cellIndex = 0;
    let cellCount = 1;
    for (let p = dStart; p < eNext; p++) if (src[p] === 0x7c) cellCount++;
    for (let p = dStart; p <= eNext; p++) {
      if (p < eNext && src[p] !== 0x7c) continue;
      let a = cellStart;
      let b = p;
      while (a < b && isSpace(src[a])) a++;
      while (b > a && isSpace(src[b - 1])) b--;
      if (a === b) {
        if (!(cellIndex === 0 || cellIndex === cellCount - 1)) return false;
      } else {
        if (src[a] === 0x3a) a++;
        if (b > a && src[b - 1] === 0x3a) b--;
        if (a >= b) return false;
        for (let k = a; k < b; k++) if (src[k] !== 0x2d) return false;
        aligns++;
      }
      cellIndex++;
      cellStart = p + 1;
    }

    jsTrim(src, this.bMarks[startLine]! + this.tShift[startLine]!, this.eMarks[startLine]!);
    const hStart = trimStart;
    const hEnd = trimEnd;
    let hasPipe = false;
    for (let p = hStart; p < hEnd; p++) {
      if (src[p] === 0x7c) {
        hasPipe = true;
        break;
      }
    }
    if (!hasPipe) return false;
    if (this.sCount[startLine]! - this.blkIndent >= 4) return false;
    const columnCount = this.rowCells(hStart, hEnd);
    if (columnCount === 0 || columnCount !== aligns) return false;

    if (silent) return true;

    const oldParentType = this.parentType;
    this.parentType = Parent.Table;
    let autocompletedCells = 0;
    for (nextLine = startLine + 2; nextLine < endLine; nextLine++) {
      if (this.sCount[nextLine]! < this.blkIndent) break;
      if (this.terminatesBlockquote(nextLine, endLine)) break;
      jsTrim(src, this.bMarks[nextLine]! + this.tShift[nextLine]!, this.eMarks[nextLine]!);
      const rStart = trimStart;
      const rEnd = trimEnd;
      if (rStart >= rEnd) break;
      if (this.sCount[nextLine]! - this.blkIndent >= 4) break;
      autocompletedCells += columnCount - this.rowCells(rStart, rEnd);
      if (autocompletedCells > 0x10000) break;
    }
    this.parentType = oldParentType;
    this.line = nextLine;
    return true;
  }

  // ---- rules_block/code ------------------------------------------------------------

  code(startLine: number, endLine: number): boolean {
    if (this.sCount[startLine]! - this.blkIndent < 4) return false;
    let nextLine = startLine + 1;
    let last = nextLine;
    while (nextLine < endLine) {
      if (this.isEmpty(nextLine)) {
        nextLine++;
        continue;
      }
      if (this.sCount[nextLine]! - this.blkIndent >= 4) {
        nextLine++;
        last = nextLine;
        continue;
      }
      break;
    }
    this.line = last;
    return true;
  }

  // ---- rules_block/fence -----------------------------------------------------------

  fence(startLine: number, endLine: number, silent: boolean): boolean {
    const src = this.src;
    let pos = this.bMarks[startLine]! + this.tShift[startLine]!;
    let max = this.eMarks[startLine]!;
    if (this.sCount[startLine]! - this.blkIndent >= 4) return false;
    if (pos + 3 > max) return false;
    const marker = src[pos]!;
    if (marker !== 0x7e && marker !== 0x60) return false;
    let mem = pos;
    pos = this.skipChars(pos, marker);
    const len = pos - mem;
    if (len < 3) return false;
    if (marker === 0x60) {
      for (let p = pos; p < max; p++) if (src[p] === 0x60) return false;
    }
    if (silent) return true;

    let nextLine = startLine;
    let haveEndMarker = false;
    for (;;) {
      nextLine++;
      if (nextLine >= endLine) break;
      pos = mem = this.bMarks[nextLine]! + this.tShift[nextLine]!;
      max = this.eMarks[nextLine]!;
      if (pos < max && this.sCount[nextLine]! < this.blkIndent) break;
      if (src[pos] !== marker) continue;
      if (this.sCount[nextLine]! - this.blkIndent >= 4) continue;
      pos = this.skipChars(pos, marker);
      if (pos - mem < len) continue;
      pos = this.skipSpaces(pos);
      if (pos < max) continue;
      haveEndMarker = true;
      break;
    }
    this.line = nextLine + (haveEndMarker ? 1 : 0);
    return true;
  }

  // ---- rules_block/blockquote ------------------------------------------------------

  blockquote(startLine: number, endLine: number, silent: boolean): boolean {
    const src = this.src;
    let pos = this.bMarks[startLine]! + this.tShift[startLine]!;
    let max = this.eMarks[startLine]!;
    const oldLineMax = this.lineMax;
    if (this.sCount[startLine]! - this.blkIndent >= 4) return false;
    if (src[pos] !== 0x3e) return false;
    if (silent) return true;

    const oldBMarks: number[] = [];
    const oldBSCount: number[] = [];
    const oldSCount: number[] = [];
    const oldTShift: number[] = [];
    const oldParentType = this.parentType;
    this.parentType = Parent.Blockquote;
    let lastLineEmpty = false;
    let nextLine: number;

    for (nextLine = startLine; nextLine < endLine; nextLine++) {
      const isOutdented = this.sCount[nextLine]! < this.blkIndent;
      pos = this.bMarks[nextLine]! + this.tShift[nextLine]!;
      max = this.eMarks[nextLine]!;
      if (pos >= max) break;

      if (src[pos++] === 0x3e && !isOutdented) {
        let initial = this.sCount[nextLine]! + 1;
        let spaceAfterMarker: boolean;
        let adjustTab = false;
        if (src[pos] === CH_SPACE) {
          pos++;
          initial++;
          adjustTab = false;
          spaceAfterMarker = true;
        } else if (src[pos] === CH_TAB) {
          spaceAfterMarker = true;
          if ((this.bsCount[nextLine]! + initial) % 4 === 3) {
            pos++;
            initial++;
            adjustTab = false;
          } else {
            adjustTab = true;
          }
        } else {
          spaceAfterMarker = false;
        }

        let offset = initial;
        oldBMarks.push(this.bMarks[nextLine]!);
        this.bMarks[nextLine] = pos;
        while (pos < max) {
          const ch = src[pos];
          if (ch === CH_TAB) offset += 4 - ((offset + this.bsCount[nextLine]! + (adjustTab ? 1 : 0)) % 4);
          else if (ch === CH_SPACE) offset++;
          else break;
          pos++;
        }
        lastLineEmpty = pos >= max;
        oldBSCount.push(this.bsCount[nextLine]!);
        this.bsCount[nextLine] = this.sCount[nextLine]! + 1 + (spaceAfterMarker ? 1 : 0);
        oldSCount.push(this.sCount[nextLine]!);
        this.sCount[nextLine] = offset - initial;
        oldTShift.push(this.tShift[nextLine]!);
        this.tShift[nextLine] = pos - this.bMarks[nextLine]!;
        continue;
      }

      if (lastLineEmpty) break;

      if (this.terminatesBlockquote(nextLine, endLine)) {
        // "hard termination mode" for paragraphs inside the quote
        this.lineMax = nextLine;
        if (this.blkIndent !== 0) {
          oldBMarks.push(this.bMarks[nextLine]!);
          oldBSCount.push(this.bsCount[nextLine]!);
          oldTShift.push(this.tShift[nextLine]!);
          oldSCount.push(this.sCount[nextLine]!);
          this.sCount[nextLine] = this.sCount[nextLine]! - this.blkIndent;
        }
        break;
      }

      oldBMarks.push(this.bMarks[nextLine]!);
      oldBSCount.push(this.bsCount[nextLine]!);
      oldTShift.push(this.tShift[nextLine]!);
      oldSCount.push(this.sCount[nextLine]!);
      // a negative indentation marks a lazy paragraph continuation
      this.sCount[nextLine] = -1;
    }

    const oldIndent = this.blkIndent;
    this.blkIndent = 0;
    this.level++;
    this.tokenize(startLine, nextLine);
    this.level--;
    this.lineMax = oldLineMax;
    this.parentType = oldParentType;
    for (let i = 0; i < oldTShift.length; i++) {
      this.bMarks[i + startLine] = oldBMarks[i]!;
      this.tShift[i + startLine] = oldTShift[i]!;
      this.sCount[i + startLine] = oldSCount[i]!;
      this.bsCount[i + startLine] = oldBSCount[i]!;
    }
    this.blkIndent = oldIndent;
    return true;
  }

  // ---- rules_block/hr --------------------------------------------------------------

  hr(startLine: number, silent: boolean): boolean {
    const src = this.src;
    const max = this.eMarks[startLine]!;
    if (this.sCount[startLine]! - this.blkIndent >= 4) return false;
    let pos = this.bMarks[startLine]! + this.tShift[startLine]!;
    const marker = src[pos++];
    if (marker !== 0x2a && marker !== 0x2d && marker !== 0x5f) return false;
    let cnt = 1;
    while (pos < max) {
      const ch = src[pos++];
      if (ch !== marker && !isSpace(ch)) return false;
      if (ch === marker) cnt++;
    }
    if (cnt < 3) return false;
    if (silent) return true;
    this.line = startLine + 1;
    return true;
  }

  // ---- rules_block/list ------------------------------------------------------------

  skipBulletListMarker(startLine: number): number {
    const max = this.eMarks[startLine]!;
    let pos = this.bMarks[startLine]! + this.tShift[startLine]!;
    const marker = this.src[pos++];
    if (marker !== 0x2a && marker !== 0x2d && marker !== 0x2b) return -1;
    if (pos < max && !isSpace(this.src[pos])) return -1;
    return pos;
  }

  skipOrderedListMarker(startLine: number): number {
    const src = this.src;
    const start = this.bMarks[startLine]! + this.tShift[startLine]!;
    const max = this.eMarks[startLine]!;
    let pos = start;
    if (pos + 1 >= max) return -1;
    let ch = src[pos++]!;
    if (ch < 0x30 || ch > 0x39) return -1;
    for (;;) {
      if (pos >= max) return -1;
      ch = src[pos++]!;
      if (ch >= 0x30 && ch <= 0x39) {
        if (pos - start >= 10) return -1;
        continue;
      }
      if (ch === 0x29 || ch === 0x2e) break;
      return -1;
    }
    if (pos < max && !isSpace(src[pos])) return -1;
    return pos;
  }

  list(startLine: number, endLine: number, silent: boolean): boolean {
    const src = this.src;
    let nextLine = startLine;
    if (this.sCount[nextLine]! - this.blkIndent >= 4) return false;
    if (this.listIndent >= 0 && this.sCount[nextLine]! - this.listIndent >= 4 && this.sCount[nextLine]! < this.blkIndent) return false;

    let isTerminatingParagraph = false;
    if (silent && this.parentType === Parent.Paragraph) {
      if (this.sCount[nextLine]! >= this.blkIndent) isTerminatingParagraph = true;
    }

    let isOrdered: boolean;
    let posAfterMarker: number;
    if ((posAfterMarker = this.skipOrderedListMarker(nextLine)) >= 0) {
      isOrdered = true;
      if (isTerminatingParagraph) {
        // a new ordered list may interrupt a paragraph only when it starts with 1
        let value = 0;
        for (let p = this.bMarks[nextLine]! + this.tShift[nextLine]!; p < posAfterMarker - 1; p++) value = value * 10 + (src[p]! - 0x30);
        if (value !== 1) return false;
      }
    } else if ((posAfterMarker = this.skipBulletListMarker(nextLine)) >= 0) {
      isOrdered = false;
    } else {
      return false;
    }

    if (isTerminatingParagraph) {
      if (this.skipSpaces(posAfterMarker) >= this.eMarks[nextLine]!) return false;
    }
    if (silent) return true;

    const markerCharCode = src[posAfterMarker - 1];
    this.level++; // list_open
    const oldParentType = this.parentType;
    this.parentType = Parent.List;

    while (nextLine < endLine) {
      let pos = posAfterMarker;
      const max = this.eMarks[nextLine]!;
      const initial = this.sCount[nextLine]! + posAfterMarker - (this.bMarks[nextLine]! + this.tShift[nextLine]!);
      let offset = initial;
      while (pos < max) {
        const ch = src[pos];
        if (ch === CH_TAB) offset += 4 - ((offset + this.bsCount[nextLine]!) % 4);
        else if (ch === CH_SPACE) offset++;
        else break;
        pos++;
      }
      const contentStart = pos;
      let indentAfterMarker = contentStart >= max ? 1 : offset - initial;
      if (indentAfterMarker > 4) indentAfterMarker = 1;
      const indent = initial + indentAfterMarker;

      const oldTShift = this.tShift[nextLine]!;
      const oldSCount = this.sCount[nextLine]!;
      const oldListIndent = this.listIndent;
      this.listIndent = this.blkIndent;
      this.blkIndent = indent;
      this.tShift[nextLine] = contentStart - this.bMarks[nextLine]!;
      this.sCount[nextLine] = offset;

      this.level++; // list_item_open
      if (contentStart >= max && this.isEmpty(nextLine + 1)) {
        // an empty item followed by a blank line ends the list
        this.line = Math.min(this.line + 2, endLine);
      } else {
        this.tokenize(nextLine, endLine);
      }
      this.level--;

      this.blkIndent = this.listIndent;
      this.listIndent = oldListIndent;
      this.tShift[nextLine] = oldTShift;
      this.sCount[nextLine] = oldSCount;

      nextLine = this.line;
      if (nextLine >= endLine) break;
      if (this.sCount[nextLine]! < this.blkIndent) break;
      if (this.sCount[nextLine]! - this.blkIndent >= 4) break;
      if (this.terminatesList(nextLine, endLine)) break;
      if (isOrdered) {
        posAfterMarker = this.skipOrderedListMarker(nextLine);
        if (posAfterMarker < 0) break;
      } else {
        posAfterMarker = this.skipBulletListMarker(nextLine);
        if (posAfterMarker < 0) break;
      }
      if (markerCharCode !== src[posAfterMarker - 1]) break;
    }

    this.level--; // list_close
    this.line = nextLine;
    this.parentType = oldParentType;
    return true;
  }

  // ---- rules_block/reference -------------------------------------------------------

  lineEnd(line: number): number {
    return Math.min(this.eMarks[line]! + 1, this.src.length);
  }

  getNextLinePos(nextLine: number): number {
    const endLine = this.lineMax;
    if (nextLine >= endLine || this.isEmpty(nextLine)) return -1;
    let isContinuation = false;
    if (this.sCount[nextLine]! - this.blkIndent > 3) isContinuation = true;
    if (this.sCount[nextLine]! < 0) isContinuation = true;
    if (!isContinuation) {
      const oldParentType = this.parentType;
      this.parentType = Parent.Reference;
      const terminate = this.terminatesParagraph(nextLine, endLine);
      this.parentType = oldParentType;
      if (terminate) return -1;
    }
    return this.bMarks[nextLine]! + this.tShift[nextLine]!;
  }

  parseLinkDestination(start: number, max: number): { ok: boolean; pos: number; strStart: number; strEnd: number } {
    const src = this.src;
    let pos = start;
    const fail = { ok: false, pos: 0, strStart: 0, strEnd: 0 };
    if (src[pos] === 0x3c) {
      pos++;
      while (pos < max) {
        const code = src[pos];
        if (code === CH_LF || code === 0x3c) return fail;
        if (code === 0x3e) return { ok: true, pos: pos + 1, strStart: start + 1, strEnd: pos };
        if (code === 0x5c && pos + 1 < max) {
          pos += 2;
          continue;
        }
        pos++;
      }
      return fail;
    }
    let level = 0;
    while (pos < max) {
      const code = src[pos]!;
      if (code === CH_SPACE) break;
      // ASCII control characters end it (NUL is U+FFFD for markdown-it, so it does not)
      if ((code < 0x20 && code !== 0) || code === 0x7f) break;
      if (code === 0x5c && pos + 1 < max) {
        if (src[pos + 1] === CH_SPACE) {
          pos++;
          continue;
        }
        pos += 2;
        continue;
      }
      if (code === 0x28) {
        level++;
        if (level > 32) return fail;
      }
      if (code === 0x29) {
        if (level === 0) break;
        level--;
      }
      pos++;
    }
    if (start === pos) return fail;
    if (level !== 0) return fail;
    return { ok: true, pos, strStart: start, strEnd: pos };
  }

  parseLinkTitle(start: number, max: number, prev: TitleState | null): TitleState {
    const src = this.src;
    let pos = start;
    const state: TitleState = { ok: false, canContinue: false, pos: 0, strLen: 0, marker: 0 };
    if (prev) {
      state.strLen = prev.strLen;
      state.marker = prev.marker;
    } else {
      if (pos >= max) return state;
      let marker = src[pos]!;
      if (marker !== 0x22 && marker !== 0x27 && marker !== 0x28) return state;
      start++;
      pos++;
      if (marker === 0x28) marker = 0x29;
      state.marker = marker;
    }
    while (pos < max) {
      const code = src[pos];
      if (code === state.marker) {
        state.pos = pos + 1;
        state.strLen += pos - start;
        state.ok = true;
        return state;
      } else if (code === 0x28 && state.marker === 0x29) {
        return state;
      } else if (code === 0x5c && pos + 1 < max) {
        pos++;
      }
      pos++;
    }
    state.canContinue = true;
    state.strLen += pos - start;
    return state;
  }

  reference(startLine: number, silent: boolean): boolean {
    const src = this.src;
    let pos = this.bMarks[startLine]! + this.tShift[startLine]!;
    let nextLine = startLine + 1;
    if (this.sCount[startLine]! - this.blkIndent >= 4) return false;
    if (src[pos] !== 0x5b) return false;

    let max = this.lineEnd(startLine);
    const labelRanges: number[] = [];
    let rawUnits = 0; // UTF-16 length of the label collected so far (markdown-it counts code units)
    let segUnits = 0;
    let labelEnd = -1;
    let segmentStart = ++pos;

    while (pos < max) {
      if (rawUnits + segUnits > 999 * 2) return false;
      let ch = src[pos];
      if (ch === 0x5b) return false;
      if (ch === 0x5d) {
        labelEnd = pos;
        break;
      }
      if (ch === 0x5c) {
        segUnits += 1;
        ch = src[++pos];
      }
      if (ch === CH_LF && pos < max) {
        const nextPos = this.getNextLinePos(nextLine);
        if (nextPos < 0) return false;
        labelRanges.push(segmentStart, max);
        rawUnits += segUnits + 1;
        pos = segmentStart = nextPos;
        segUnits = 0;
        max = this.lineEnd(nextLine++);
        continue;
      }
      segUnits += utf16Units(src[pos]);
      pos++;
    }

    if (labelEnd < 0 || src[labelEnd + 1] !== 0x3a) return false;
    labelRanges.push(segmentStart, labelEnd);
    rawUnits += segUnits;
    if (rawUnits > 999) {
      let codePoints = 0;
      for (let i = 0; i < labelRanges.length; i += 2) {
        for (let p = labelRanges[i]!; p < labelRanges[i + 1]!; p++) if ((src[p]! & 0xc0) !== 0x80) codePoints++;
      }
      if (codePoints > 999) return false;
    }

    pos = labelEnd + 2;
    while (pos < max) {
      const ch = src[pos];
      if (ch === CH_LF) {
        const nextPos = this.getNextLinePos(nextLine);
        if (nextPos < 0) break;
        pos = nextPos;
        max = this.lineEnd(nextLine++);
      } else if (isSpace(ch)) {
        pos++;
      } else {
        break;
      }
    }

    const dest = this.parseLinkDestination(pos, max);
    if (!dest.ok) return false;
    if (!isAllowedLink(decode(src, dest.strStart, dest.strEnd))) return false;
    pos = dest.pos;

    const destEndPos = pos;
    const destEndMax = max;
    const destEndLineNo = nextLine;

    while (pos < max) {
      const ch = src[pos];
      if (ch === CH_LF) {
        const nextPos = this.getNextLinePos(nextLine);
        if (nextPos < 0) break;
        pos = nextPos;
        max = this.lineEnd(nextLine++);
      } else if (isSpace(ch)) {
        pos++;
      } else {
        break;
      }
    }

    const titleStart = pos;
    let titleRes = this.parseLinkTitle(pos, max, null);
    while (titleRes.canContinue) {
      const nextPos = this.getNextLinePos(nextLine);
      if (nextPos < 0) break;
      pos = nextPos;
      max = this.lineEnd(nextLine++);
      titleRes = this.parseLinkTitle(pos, max, titleRes);
    }
    let hasTitle: boolean;
    if (titleStart !== destEndPos && titleRes.ok) {
      hasTitle = titleRes.strLen > 0;
      pos = titleRes.pos;
    } else {
      hasTitle = false;
      pos = destEndPos;
      max = destEndMax;
      nextLine = destEndLineNo;
    }

    while (pos < max && isSpace(src[pos])) pos++;
    if (pos < max && src[pos] !== CH_LF) {
      if (hasTitle) {
        // garbage after the title: still a reference if we roll back to the destination
        hasTitle = false;
        pos = destEndPos;
        max = destEndMax;
        nextLine = destEndLineNo;
        while (pos < max && isSpace(src[pos])) pos++;
      }
    }
    if (pos < max && src[pos] !== CH_LF) return false;

    // normalizeReference: a label of white space only is empty
    let labelEmpty = true;
    outer: for (let i = 0; i < labelRanges.length; i += 2) {
      const end = labelRanges[i + 1]!;
      for (let p = labelRanges[i]!; p < end; ) {
        const cp = codePointAt(src, p, end);
        if (!isJsWhitespaceCodePoint(cp)) {
          labelEmpty = false;
          break outer;
        }
        p += cpLen;
      }
    }
    if (labelEmpty) return false;

    if (silent) return true;
    this.line = nextLine;
    return true;
  }

  // ---- rules_block/html_block ------------------------------------------------------

  htmlBlock(startLine: number, endLine: number, silent: boolean): boolean {
    const src = this.src;
    let pos = this.bMarks[startLine]! + this.tShift[startLine]!;
    let max = this.eMarks[startLine]!;
    if (this.sCount[startLine]! - this.blkIndent >= 4) return false;
    if (src[pos] !== 0x3c) return false;

    const lineText = decode(src, pos, max);
    let kind = 0;
    for (; kind < HTML_OPENERS.length; kind++) if (HTML_OPENERS[kind]!.re.test(lineText)) break;
    if (kind === HTML_OPENERS.length) return false;
    if (silent) return HTML_OPENERS[kind]!.interrupts;

    let nextLine = startLine + 1;
    // kinds 6 and 7 end at a blank line; the others only at their closing sequence
    const endsOnBlankLine = kind >= 5;
    const closesOnFirstLine = endsOnBlankLine ? pos >= max : htmlCloses(src, kind, pos, max);
    if (!closesOnFirstLine) {
      for (; nextLine < endLine; nextLine++) {
        if (this.sCount[nextLine]! < this.blkIndent) {
          if (endsOnBlankLine || !this.isEmpty(nextLine)) break;
        }
        pos = this.bMarks[nextLine]! + this.tShift[nextLine]!;
        max = this.eMarks[nextLine]!;
        const closes = endsOnBlankLine ? pos >= max : htmlCloses(src, kind, pos, max);
        if (closes) {
          if (pos < max) nextLine++;
          break;
        }
      }
    }
    this.line = nextLine;
    return true;
  }

  // ---- rules_block/heading ---------------------------------------------------------

  heading(startLine: number, silent: boolean): boolean {
    const src = this.src;
    let pos = this.bMarks[startLine]! + this.tShift[startLine]!;
    let max = this.eMarks[startLine]!;
    if (this.sCount[startLine]! - this.blkIndent >= 4) return false;
    let ch = src[pos];
    if (ch !== 0x23 || pos >= max) return false;
    let level = 1;
    ch = src[++pos];
    while (ch === 0x23 && pos < max && level <= 6) {
      level++;
      ch = src[++pos];
    }
    if (level > 6 || (pos < max && !isSpace(ch))) return false;
    if (silent) return true;

    max = this.skipSpacesBack(max, pos);
    const tmp = this.skipCharsBack(max, 0x23, pos);
    if (tmp > pos && isSpace(src[tmp - 1])) max = tmp;
    this.line = startLine + 1;
    if (this.level === 0) {
      this.headings.push({ level, style: 'atx', startLine, endLine: startLine + 1, textStart: pos, textEnd: max });
    }
    return true;
  }

  // ---- rules_block/lheading --------------------------------------------------------

  lheading(startLine: number, endLine: number): boolean {
    const src = this.src;
    if (this.sCount[startLine]! - this.blkIndent >= 4) return false;
    const oldParentType = this.parentType;
    this.parentType = Parent.Paragraph;
    let level = 0;
    let nextLine = startLine + 1;
    for (; nextLine < endLine && !this.isEmpty(nextLine); nextLine++) {
      if (this.sCount[nextLine]! - this.blkIndent > 3) continue;
      if (this.sCount[nextLine]! >= this.blkIndent) {
        let pos = this.bMarks[nextLine]! + this.tShift[nextLine]!;
        const max = this.eMarks[nextLine]!;
        if (pos < max) {
          const marker = src[pos]!;
          if (marker === 0x2d || marker === 0x3d) {
            pos = this.skipChars(pos, marker);
            pos = this.skipSpaces(pos);
            if (pos >= max) {
              level = marker === 0x3d ? 1 : 2;
              break;
            }
          }
        }
      }
      if (this.sCount[nextLine]! < 0) continue;
      if (this.terminatesParagraph(nextLine, endLine)) break;
    }
    if (!level) {
      this.parentType = oldParentType;
      return false;
    }
    this.line = nextLine + 1;
    if (this.level === 0) {
      // At the root nothing rewrote bMarks, so the content lines are one contiguous slice.
      this.headings.push({ level, style: 'setext', startLine, endLine: nextLine + 1, textStart: this.bMarks[startLine]!, textEnd: this.eMarks[nextLine - 1]! });
    }
    this.parentType = oldParentType;
    return true;
  }

  // ---- rules_block/paragraph -------------------------------------------------------

  paragraph(startLine: number, endLine: number): void {
    const oldParentType = this.parentType;
    let nextLine = startLine + 1;
    this.parentType = Parent.Paragraph;
    for (; nextLine < endLine && !this.isEmpty(nextLine); nextLine++) {
      if (this.sCount[nextLine]! - this.blkIndent > 3) continue;
      if (this.sCount[nextLine]! < 0) continue;
      if (this.terminatesParagraph(nextLine, endLine)) break;
    }
    this.line = nextLine;
    this.parentType = oldParentType;
  }
}

// ---------------------------------------------------------------------------------------

function isFrontMatterFence(src: Uint8Array, start: number, end: number, allowDots: boolean): boolean {
  if (end - start < 3) return false;
  const c = src[start];
  if (!(c === 0x2d || (allowDots && c === 0x2e))) return false;
  if (src[start + 1] !== c || src[start + 2] !== c) return false;
  for (let p = start + 3; p < end; p++) if (!isSpace(src[p])) return false;
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

  // markdown-it normalises CRLF and CR to LF; so do we, in a private copy made only when the
  // file has a CR. `crlfAt` keeps where a CRLF became one LF, to map lines back to raw bytes.
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let crlf = 0;
  let cr = 0;
  const crlfAt: number[] = [];
  let src: Uint8Array;
  let i = raw.indexOf(CH_CR, bomLen);
  if (i < 0) {
    src = bytes.subarray(bomLen);
  } else {
    const out = new Uint8Array(size - bomLen);
    out.set(bytes.subarray(bomLen, i), 0);
    let j = i - bomLen;
    while (i < size) {
      // here bytes[i] is a CR
      out[j] = CH_LF;
      if (bytes[i + 1] === CH_LF) {
        crlfAt.push(j);
        crlf++;
        i += 2;
      } else {
        cr++;
        i += 1;
      }
      j++;
      let next = raw.indexOf(CH_CR, i);
      if (next < 0) next = size;
      out.set(bytes.subarray(i, next), j);
      j += next - i;
      i = next;
    }
    src = out.subarray(0, j);
  }

  const scanner = new BlockScanner(src);
  const lf = scanner.newlines - crlf - cr;
  const kinds = (lf ? 1 : 0) + (crlf ? 1 : 0) + (cr ? 1 : 0);
  const lineEnding: LineEnding = kinds === 0 ? 'none' : kinds > 1 ? 'mixed' : lf ? 'lf' : crlf ? 'crlf' : 'cr';

  // Raw byte offset of each line: the normalised start, plus the BOM, plus one per CRLF before it.
  const lineStarts: number[] = new Array<number>(scanner.lineCount);
  for (let k = 0, c = 0; k < scanner.lineCount; k++) {
    const s = scanner.starts[k]!;
    while (c < crlfAt.length && crlfAt[c]! < s) c++;
    lineStarts[k] = k === 0 ? 0 : s + bomLen + c;
  }
  if (size > 0 && lineStarts.length === 0) lineStarts.push(0); // a file that is only a BOM
  const lineByteStart = (line: number): number => (line === 0 ? bomLen : line < lineStarts.length ? lineStarts[line]! : size);

  // YAML front matter: `---` on the first line, closed by `---` or `...` on a later line.
  let frontMatter: ParsedMarkdown['frontMatter'] = null;
  let firstLine = 0;
  if (scanner.lineMax > 1 && isFrontMatterFence(src, scanner.bMarks[0]!, scanner.eMarks[0]!, false)) {
    for (let line = 1; line < scanner.lineMax; line++) {
      if (isFrontMatterFence(src, scanner.bMarks[line]!, scanner.eMarks[line]!, true)) {
        firstLine = line + 1;
        const end = lineByteStart(firstLine);
        frontMatter = { start: 0, end, raw: utf8.decode(bytes.subarray(bomLen, end)) };
        break;
      }
    }
  }

  scanner.tokenize(firstLine, scanner.lineMax);

  const headings: Heading[] = scanner.headings.map((h) => {
    const [a, b] = asciiTrim(src, h.textStart, h.textEnd);
    let text = decode(src, a, b);
    if (h.style === 'setext') text = text.replace(/[ \t]*\n[ \t]*/g, ' ');
    return { level: h.level, text, style: h.style, start: lineByteStart(h.startLine), end: lineByteStart(h.endLine), line: h.startLine + 1 };
  });

  return { bom, lineEnding, frontMatter, headings, lineStarts, size };
}

// ---------------------------------------------------------------------------------------

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

/** The heading level the document is split at, or 0 when it has no heading. */
export function splitLevel(headings: readonly Heading[]): number {
  if (!headings.length) return 0;
  const h1 = headings.filter((h) => h.level === 1);
  if (h1.length === 1 && headings[0]!.level === 1 && headings.some((h) => h.level === 2)) return 2;
  return Math.min(...headings.map((h) => h.level));
}

/**
 * Cut a parsed file into contiguous sections that cover every byte exactly once:
 * [front matter] [preamble] heading sections at the split level (see splitLevel), deeper
 * headings staying inside their parent. Concatenating the ranges gives back `bytes`.
 */
export function splitSections(sourcePath: string, bytes: Uint8Array, parsed: ParsedMarkdown, firstIndex: number): Section[] {
  const size = bytes.length;
  const level = splitLevel(parsed.headings);
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
