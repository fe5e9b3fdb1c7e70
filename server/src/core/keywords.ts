/**
 * Evidence extraction from text: topic keyword scores (body words and fence info strings, fenced
 * code itself left out) and the paths and globs a text names. Also the block classifier that
 * topics.ts uses to group unstructured text. What the words mean is in taxonomy.ts; what a
 * section's scope is, in scope.ts.
 */
import { GENERAL_RE, TOPICS, W_PRIMARY, W_SECONDARY, W_WEAK, type Topic } from './taxonomy.js';

/** Only the first this-many characters of a section are scanned (a 10 MB section costs the same as a 64 KB one). */
export const SCAN_CAP = 64 * 1024;

// ---------------------------------------------------------------- keyword dictionary

interface Hit {
  topic: number;
  weight: number;
}
const DICT = new Map<string, Hit[]>();
function addKw(kw: string, topic: number, weight: number): void {
  const list = DICT.get(kw) ?? [];
  if (!list.some((h) => h.topic === topic)) list.push({ topic, weight });
  DICT.set(kw, list);
}
TOPICS.forEach((t, i) => {
  for (const k of t.primary) addKw(k, i, W_PRIMARY);
  for (const k of t.secondary ?? []) addKw(k, i, W_SECONDARY);
  for (const k of t.weak ?? []) addKw(k, i, W_WEAK);
});
const FENCE_DICT = new Map<string, number[]>();
TOPICS.forEach((t, i) => {
  for (const f of t.fences ?? []) FENCE_DICT.set(f, [...(FENCE_DICT.get(f) ?? []), i]);
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * Every keyword in one regular expression, run over the lower-cased text. The alternation is
 * written as a trie (`t(?:ypescript|sconfig)`) so that V8 decides on each character once, and
 * anchored on `\b` so that only word starts are tried; keywords that start with a dot (`.py`)
 * get a second, dot-gated expression. Two-word keywords match any run of white space.
 */
const WORD_KEYWORD_RE = new RegExp(`\\b${trieSource([...DICT.keys()].filter((k) => !k.startsWith('.')))}(?![a-z0-9_#+])`, 'g');
const DOT_KEYWORD_RE = new RegExp(`(?<![a-z0-9_#+.\\-])\\.${trieSource([...DICT.keys()].filter((k) => k.startsWith('.')).map((k) => k.slice(1)))}(?![a-z0-9_#+])`, 'g');

function trieSource(keywords: readonly string[]): string {
  interface Node {
    end: boolean;
    next: Map<string, Node>;
  }
  const root: Node = { end: false, next: new Map() };
  for (const k of keywords) {
    let n = root;
    for (const ch of k) {
      let c = n.next.get(ch);
      if (!c) {
        c = { end: false, next: new Map() };
        n.next.set(ch, c);
      }
      n = c;
    }
    n.end = true;
  }
  const emit = (n: Node): string => {
    const branches = [...n.next.keys()].sort(cmpStr).map((ch) => (ch === ' ' ? '\\s+' : escapeRe(ch)) + emit(n.next.get(ch)!));
    if (!branches.length) return '';
    const body = branches.length === 1 ? branches[0]! : `(?:${branches.join('|')})`;
    // Greedy: the longest keyword that ends on a word boundary wins.
    return n.end ? `(?:${body})?` : body;
  };
  return emit(root);
}

function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface TopicScore {
  topic: number;
  score: number;
  /** The part of `score` from primary and secondary keywords (generic words such as "tests" left out). */
  strong: number;
  /** keyword -> occurrences (capped), in first-seen order. */
  keywords: Map<string, number>;
}

export interface Mention {
  raw: string;
  /** `file`: a bare file name in backticks (`plugin_api.py`), resolved against the workspace later. */
  kind: 'glob' | 'dir' | 'file';
  /** Normalised: glob relative to the root, a directory path without trailing slash, or a file name. */
  value: string;
  /** How often the text names it: the folders a section is about are named more than once. */
  count: number;
}

export interface TextScan {
  scores: Map<number, TopicScore>;
  /** Paths and globs named outside code fences (computed on first use). */
  readonly mentions: Mention[];
}

/** Occurrences of one keyword counted at most this often: repetition of one word is not a broad signal. */
const KW_CAP = 3;

function addScore(scores: Map<number, TopicScore>, topic: number, kw: string, weight: number): void {
  let s = scores.get(topic);
  if (!s) {
    s = { topic, score: 0, strong: 0, keywords: new Map() };
    scores.set(topic, s);
  }
  const n = s.keywords.get(kw) ?? 0;
  if (n >= KW_CAP) return;
  s.keywords.set(kw, n + 1);
  s.score += weight;
  if (weight >= W_SECONDARY) s.strong += weight;
}

/**
 * Call `cb` for every keyword occurrence in `lower`, in order of position. `lower` is lower-cased
 * text; ASCII-compatible text such as a latin1 decoding of UTF-8 bytes works too (every keyword
 * is ASCII), which makes string offsets byte offsets.
 */
export function forEachKeyword(lower: string, cb: (index: number, keyword: string) => void): void {
  // Dotted keywords (`.py`) are rare: collect them first, then merge them into the word pass.
  const dotAt: number[] = [];
  const dotKw: string[] = [];
  DOT_KEYWORD_RE.lastIndex = 0;
  for (let m = DOT_KEYWORD_RE.exec(lower); m; m = DOT_KEYWORD_RE.exec(lower)) {
    dotAt.push(m.index);
    dotKw.push(m[0]);
  }
  let d = 0;
  WORD_KEYWORD_RE.lastIndex = 0;
  for (let m = WORD_KEYWORD_RE.exec(lower); m; m = WORD_KEYWORD_RE.exec(lower)) {
    // `\b` lets `#+.-` through; a keyword after them is part of a longer name (`my-react`, `x.go`).
    if (m.index > 0) {
      const prev = lower.charCodeAt(m.index - 1);
      if (prev === 35 || prev === 43 || prev === 46 || prev === 45) continue;
    }
    while (d < dotAt.length && dotAt[d]! < m.index) cb(dotAt[d]!, dotKw[d++]!);
    // A match that is a keyword as written needs no white-space folding (keywords have single spaces).
    const kw = m[0];
    cb(m.index, DICT.has(kw) ? kw : kw.replace(/\s+/g, ' '));
  }
  while (d < dotAt.length) cb(dotAt[d]!, dotKw[d++]!);
}

/** Add one occurrence of `keyword` (as reported by forEachKeyword) to `scores`. */
export function scoreKeyword(scores: Map<number, TopicScore>, keyword: string): void {
  const hits = DICT.get(keyword);
  if (hits) for (const h of hits) addScore(scores, h.topic, keyword, h.weight);
}

/** Add a fence info string (```ts) to `scores`. */
export function scoreFenceInfo(scores: Map<number, TopicScore>, info: string): void {
  for (const t of FENCE_DICT.get(info) ?? []) addScore(scores, t, `\`\`\`${info}`, W_SECONDARY);
}

function scoreKeywords(prose: string, scores: Map<number, TopicScore>): void {
  forEachKeyword(prose.toLowerCase(), (_i, kw) => scoreKeyword(scores, kw));
}

/** Lines that open or close a fence (``` or ~~~ after at most 3 spaces). */
const FENCE_LINE_RE = /^ {0,3}(`{3,}|~{3,})([^\r\n]*)$/gm;

/** Drop fenced code (its content says little about scope; its info string does). */
function proseOf(text: string, scores: Map<number, TopicScore> | null): string {
  if (!text.includes('```') && !text.includes('~~~')) return text;
  let out = '';
  let pos = 0;
  let open: { ch: string; len: number; start: number } | null = null;
  FENCE_LINE_RE.lastIndex = 0;
  for (let m = FENCE_LINE_RE.exec(text); m; m = FENCE_LINE_RE.exec(text)) {
    const marker = m[1]!;
    const rest = m[2] ?? '';
    if (open) {
      if (marker[0] === open.ch && marker.length >= open.len && rest.trim() === '') {
        open = null;
        pos = m.index + m[0].length;
      }
      continue;
    }
    if (marker[0] === '`' && rest.includes('`')) continue; // not a fence: an inline code span
    out += text.slice(pos, m.index);
    open = { ch: marker[0]!, len: marker.length, start: m.index };
    const info = rest.trim().split(/[\s{]/, 1)[0]!.toLowerCase();
    if (scores && info) scoreFenceInfo(scores, info);
  }
  // An unclosed fence runs to the end.
  if (!open) out += text.slice(pos);
  return out;
}

const SAFE_GLOB = /^[\w.\-/*{},?[\]!@+]+$/;
const EXT_GLOB = /^\*{1,2}[\w-]*\.[\w.{},-]+$/;
const DIR_TOKEN = /^(?:\.\/)?[\w.-]+(?:\/[\w.-]+)*\/$/;
const BACKTICK_RE = /`([^`\s]{1,200})`/g;

/** Characters that end a path-like token. */
function isStop(c: number): boolean {
  // white space, ` ' " ( ) < > [ ] | ;
  return c <= 32 || c === 96 || c === 39 || c === 34 || c === 40 || c === 41 || c === 60 || c === 62 || c === 91 || c === 93 || c === 124 || c === 59;
}

/** A file's name with its extension (`pyproject.toml`, `Program.cs`), not a version number (`1.2`). */
export function isFileName(word: string): boolean {
  return /^[\w-]+\.[a-z][a-z0-9]{0,5}$/i.test(word) && !/^\d/.test(word);
}

function normaliseGlob(raw: string): string | null {
  let g = raw.replace(/^\.\//, '').replace(/^\/+/, '');
  if (!g || g.includes('\\') || g.split('/').some((seg) => seg === '..' || seg === '.')) return null;
  if (!g.includes('/')) g = `**/${g}`;
  return g;
}

function collectMentions(prose: string): Mention[] {
  const out: Mention[] = [];
  const seen = new Map<string, Mention>();
  const push = (raw: string, kind: Mention['kind'], value: string): void => {
    const key = `${kind}:${value}`;
    const had = seen.get(key);
    if (had) {
      had.count++;
      return;
    }
    const full: Mention = { raw, kind, value, count: 1 };
    seen.set(key, full);
    out.push(full);
  };
  // Tokens (runs of non-stop characters) that contain `/` or `*`, found from those characters
  // with indexOf (a regular expression's exec per `*` of Markdown emphasis cost more).
  let slash = prose.indexOf('/');
  let star = prose.indexOf('*');
  while (slash >= 0 || star >= 0) {
    const at = slash < 0 ? star : star < 0 ? slash : Math.min(slash, star);
    let a = at;
    while (a > 0 && !isStop(prose.charCodeAt(a - 1))) a--;
    let b = at + 1;
    while (b < prose.length && !isStop(prose.charCodeAt(b))) b++;
    // The next token starts after b (a stop character, or the end).
    if (slash >= 0 && slash < b) slash = prose.indexOf('/', b);
    if (star >= 0 && star < b) star = prose.indexOf('*', b);
    if (seen.size >= 64) break;
    const raw = prose.slice(a, b).replace(/[.,:;!?]+$/, '');
    if (raw.length < 2 || raw.length > 200 || raw.includes('://')) continue;
    if (raw.includes('*')) {
      if (!SAFE_GLOB.test(raw)) continue;
      if (!raw.includes('/') && !EXT_GLOB.test(raw)) continue; // `*emphasis*`, `**bold**`
      const g = normaliseGlob(raw);
      if (g) push(raw, 'glob', g);
    } else if (DIR_TOKEN.test(raw)) {
      const d = raw.replace(/^\.\//, '').replace(/\/+$/, '');
      if (d && d !== '.' && !d.split('/').includes('..')) push(raw, 'dir', d);
    }
  }
  // `src/api` in backticks, without a trailing slash, may still be a directory (checked against the index later).
  if (prose.includes('`')) {
    BACKTICK_RE.lastIndex = 0;
    for (let m = BACKTICK_RE.exec(prose); m; m = BACKTICK_RE.exec(prose)) {
      const raw = m[1]!;
      if (raw.includes('*') || raw.endsWith('/') || raw.includes('://')) continue;
      // `pyproject.toml`, and the capitalised names of files without extension (`VERSION`, `Makefile`).
      if (isFileName(raw) || /^[A-Z][A-Za-z]{3,}$/.test(raw)) {
        push(raw, 'file', raw);
        continue;
      }
      // A single word (`strict`) is too weak: only paths (`src/api`) count without a trailing slash.
      // A path from the repository's root (`/api`, `/api/src`) is one too.
      if ((/^(?:\.\/)?[\w.-]+(?:\/[\w.-]+)+$/.test(raw) || /^\/[\w.-]+(?:\/[\w.-]+)*$/.test(raw)) && !raw.split('/').includes('..')) {
        // A leading slash stays: such a path is looked up at the root only (`/api`, not any `api/`).
        const d = raw.replace(/^\.\//, '');
        if (d && d !== '.') push(raw, 'dir', d);
      }
    }
  }
  return out;
}

/** Mentions are collected on first use: most sections are decided before paths are looked at. */
class Scan implements TextScan {
  private found: Mention[] | null = null;
  constructor(
    readonly scores: Map<number, TopicScore>,
    private readonly prose: string,
  ) {}
  get mentions(): Mention[] {
    this.found ??= collectMentions(this.prose);
    return this.found;
  }
}

/** Keyword scores and mentions of the first `cap` characters of a text. */
export function scan(text: string, cap = SCAN_CAP): TextScan {
  const capped = text.length > cap ? text.slice(0, cap) : text;
  const scores = new Map<number, TopicScore>();
  const prose = proseOf(capped, scores);
  scoreKeywords(prose, scores);
  return new Scan(scores, prose);
}

/**
 * Classify a block of unstructured text (a paragraph, a list item) for topic grouping.
 * Conservative: a label line (`Testing:`, `**Testing**`) naming a topic is strong; otherwise the
 * block's keywords must reach 2 (one primary keyword or two secondary ones; 3 for a block longer
 * than 300 characters) and be at least twice any other family's.
 */
export function classifyBlock(text: string): Topic | null {
  const capped = text.length > SCAN_CAP ? text.slice(0, SCAN_CAP) : text;
  const firstLine = /^[^\r\n]*/.exec(capped.replace(/^\s+/, ''))?.[0] ?? '';
  return labelTopic(firstLine) ?? decideBlock(scan(capped).scores, capped.length);
}

const LABEL_RE = /^(?:[-*+]\s+|\d{1,9}[.)]\s+)?(?:\*\*|__)?([^*_:\r\n]{1,60}?)(?:\*\*|__)?\s*:|^(?:\*\*|__)([^*_\r\n]{1,60})(?:\*\*|__)\s*$/;

/** The topic a label line names (`Testing:`, `- **Python**: …`, `**Docker**`), if exactly one family. */
export function labelTopic(firstLine: string): Topic | null {
  const labelMatch = LABEL_RE.exec(firstLine);
  if (!labelMatch) return null;
  const label = (labelMatch[1] ?? labelMatch[2] ?? '').trim();
  if (!label || GENERAL_RE.test(label)) return null;
  const hits = TOPICS.filter((t) => t.heading.test(label) || (t.headingWeak?.test(label) ?? false));
  if (hits.length === 1 || (hits.length > 1 && new Set(hits.map((t) => t.family)).size === 1)) return hits[0]!;
  return null;
}

/** Decide a block's topic from its keyword scores; `length` is the block's length (characters or bytes). */
export function decideBlock(scores: ReadonlyMap<number, TopicScore>, length: number): Topic | null {
  let top: TopicScore | undefined;
  for (const s of scores.values()) if (!top || s.score > top.score || (s.score === top.score && s.topic < top.topic)) top = s;
  // A short item naming its language once is clear; a long paragraph needs more than one mention.
  if (!top || top.score < (length > 300 ? W_PRIMARY + W_SECONDARY : W_PRIMARY)) return null;
  const fam = TOPICS[top.topic]!.family;
  let other = 0;
  for (const s of scores.values()) if (TOPICS[s.topic]!.family !== fam && s.score > other) other = s.score;
  if (other * 2 > top.score) return null;
  return TOPICS[top.topic]!;
}
