/**
 * The one module that owns GitHub Copilot's instruction file format.
 *
 * Docs encoded here (GitHub Docs, "Adding repository custom instructions for GitHub Copilot"):
 * - repository-wide: `.github/copilot-instructions.md`, plain Markdown;
 * - path-specific: `.github/instructions/NAME.instructions.md` with YAML front matter
 *   `applyTo: "glob,glob"` (one string, comma-separated globs), an optional `description`, and
 *   an optional `excludeAgent: "code-review"` or `"coding-agent"` (that agent does not read the file).
 * - No length limit: Copilot code review's 4,000-character read limit was removed on 2026-06-12
 *   (GitHub changelog "Copilot code review: new configurations and controls").
 *
 * We read every shape found in the wild (unquoted `*…` values, which are YAML aliases and
 * break strict parsers; YAML lists; several quoted globs separated by commas, which are no YAML
 * at all; brace groups containing commas) and write only the documented one.
 *
 * It also owns where a front matter block is (frontMatterBlock): Cursor and Windsurf rules
 * (agents/rule-front-matter.ts), the repository-wide file's pinned prefix (plan-outputs.ts) and
 * the evaluation's case builder (bench/eval-make-case.mjs) find it here.
 */
import { parseDocument, isAlias, isSeq, isScalar, stringify, type Document } from 'yaml';

export const REPO_WIDE_PATH = '.github/copilot-instructions.md';
export const INSTRUCTIONS_DIR = '.github/instructions';
export const INSTRUCTIONS_SUFFIX = '.instructions.md';

export function instructionPath(slug: string): string {
  return `${INSTRUCTIONS_DIR}/${slug}${INSTRUCTIONS_SUFFIX}`;
}

/**
 * Split a comma-separated applyTo string into globs, keeping commas inside brace groups
 * (`**\/*.{ts,tsx}` is one glob).
 */
export function splitApplyTo(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of value) {
    if (ch === '{') depth++;
    else if (ch === '}' && depth > 0) depth--;
    if (ch === ',' && depth === 0) {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

export function joinApplyTo(globs: readonly string[]): string {
  return globs.map((g) => g.trim()).filter(Boolean).join(',');
}

type ApplyToShape = 'quoted-string' | 'quoted-strings' | 'unquoted-string' | 'alias-like' | 'yaml-list' | 'missing' | 'other';

/** Several quoted globs after `applyTo:` (`"**\/*.ts", "**\/*.tsx"`): no YAML value, but what its writer meant is plain. */
const QUOTED_STRINGS_RE = /^(?:"[^"]*"|'[^']*')(?:[ \t]*,[ \t]*(?:"[^"]*"|'[^']*'))+$/;
const QUOTED_ITEM_RE = /"([^"]*)"|'([^']*)'/g;

export interface ParsedFrontMatter {
  /** Byte-free: character offsets of the front matter block in the decoded text (including fences). */
  present: boolean;
  applyTo: string | null;
  applyToShape: ApplyToShape;
  description: string | null;
  /** `excludeAgent` as written (a string, or a list's items joined with commas), null when absent. */
  excludeAgent: string | null;
  /** Problems reading it (invalid YAML etc.). */
  errors: string[];
  /** Length in characters of the front matter block including fences and the newline after the closing fence. */
  length: number;
}

/** `---` on the first line (after an optional BOM), closed by the next line that is `---`; the block may be empty. */
const FM_RE = /^\uFEFF?---[ \t]*(?:\r\n|\n|\r)(?:([\s\S]*?)(?:\r\n|\n|\r))??---[ \t]*(?:\r\n|\n|\r|$)/;

/** Front matter is small: a block is looked for in this many bytes at the start of a file. */
const FM_WINDOW = 64 * 1024;

export interface FrontMatterBlock {
  /** Bytes of a leading UTF-8 BOM: 0 or 3. */
  bom: number;
  /** Bytes up to the line break after the closing fence (BOM included); `bom` when there is no block. */
  end: number;
  /** The text between the fences; null when there is no block. */
  body: string | null;
}

/** Where the front matter block of a file's bytes is (read from its first 64 KiB). */
export function frontMatterBlock(bytes: Uint8Array): FrontMatterBlock {
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  if (bytes[bom] !== 0x2d || bytes[bom + 1] !== 0x2d || bytes[bom + 2] !== 0x2d) return { bom, end: bom, body: null };
  const head = Buffer.from(bytes.buffer, bytes.byteOffset + bom, Math.min(bytes.length - bom, FM_WINDOW)).toString('utf8');
  const m = FM_RE.exec(head);
  return m ? { bom, end: bom + Buffer.byteLength(m[0], 'utf8'), body: m[1] ?? '' } : { bom, end: bom, body: null };
}

/** Read the YAML front matter of an instruction file leniently. */
export function readFrontMatter(text: string): ParsedFrontMatter {
  const m = FM_RE.exec(text);
  if (!m) return { present: false, applyTo: null, applyToShape: 'missing', description: null, excludeAgent: null, errors: [], length: 0 };
  const body = m[1] ?? '';
  const errors: string[] = [];
  let applyTo: string | null = null;
  let shape: ApplyToShape = 'missing';
  let description: string | null = null;

  // Find the raw applyTo line first: unquoted values starting with `*` are YAML aliases.
  const rawLine = /^applyTo[ \t]*:[ \t]*(.*)$/m.exec(body);
  let doc: Document.Parsed | null = null;
  try {
    // Only nodes are inspected (never toJS), so alias bombs are never expanded.
    doc = parseDocument(body, { prettyErrors: false, uniqueKeys: false });
    for (const e of doc.errors) errors.push(e.message);
  } catch (e) {
    errors.push((e as Error).message);
  }
  const node = doc?.contents && 'get' in doc.contents ? (doc.contents as { get(k: string, keep: true): unknown }).get('applyTo', true) : undefined;
  if (rawLine) {
    const raw = (rawLine[1] ?? '').replace(/\s+#.*$/, '').trim();
    if (isSeq(node)) {
      shape = 'yaml-list';
      applyTo = joinApplyTo(node.items.map((i) => (isScalar(i) ? String(i.value) : String(i))));
    } else if (QUOTED_STRINGS_RE.test(raw)) {
      shape = 'quoted-strings';
      applyTo = joinApplyTo([...raw.matchAll(QUOTED_ITEM_RE)].map((q) => q[1] ?? q[2] ?? ''));
    } else if (raw.startsWith('"') || raw.startsWith("'")) {
      shape = 'quoted-string';
      applyTo = isScalar(node) && node.value != null ? String(node.value) : raw.slice(1, -1);
    } else if (raw.startsWith('*') || isAlias(node)) {
      shape = 'alias-like';
      applyTo = raw;
    } else if (raw.startsWith('[')) {
      shape = 'yaml-list';
      applyTo = joinApplyTo(raw.slice(1, raw.lastIndexOf(']') > 0 ? raw.lastIndexOf(']') : undefined).split(',').map((s) => s.trim().replace(/^["']|["']$/g, '')));
    } else if (raw === '' && isSeq(node)) {
      shape = 'yaml-list';
    } else if (raw.startsWith('{') || (isScalar(node) && node.value !== null && typeof node.value !== 'string') || (node && !isScalar(node))) {
      // A mapping, a number or a boolean: not a glob string at all.
      shape = 'other';
      applyTo = null;
    } else if (raw !== '') {
      shape = 'unquoted-string';
      applyTo = isScalar(node) && node.value != null ? String(node.value) : raw;
    } else {
      shape = 'other';
    }
  }
  if (doc && !errors.length) {
    const d = (doc.contents as { get?(k: string): unknown } | null)?.get?.('description');
    if (typeof d === 'string') description = d;
  } else {
    const dl = /^description[ \t]*:[ \t]*(.*)$/m.exec(body);
    if (dl) description = (dl[1] ?? '').trim().replace(/^["']|["']$/g, '');
  }
  return { present: true, applyTo, applyToShape: shape, description, excludeAgent: readExcludeAgent(body, doc, errors.length === 0), errors, length: m[0].length };
}

/** `excludeAgent` read leniently: a string, quoted or not, or a YAML list (flow or block) of them. */
function readExcludeAgent(body: string, doc: Document.Parsed | null, parsed: boolean): string | null {
  const node = parsed && doc?.contents && 'get' in doc.contents ? (doc.contents as { get(k: string, keep: true): unknown }).get('excludeAgent', true) : undefined;
  if (isSeq(node)) return joinApplyTo(node.items.map((i) => (isScalar(i) ? String(i.value) : String(i))));
  if (isScalar(node) && node.value != null) return String(node.value).trim() || null;
  const line = /^excludeAgent[ \t]*:[ \t]*(.*)$/m.exec(body);
  if (!line) return null;
  const raw = (line[1] ?? '').replace(/\s+#.*$/, '').trim().replace(/^\[|\]$/g, '');
  return joinApplyTo(raw.split(',').map((s) => s.trim().replace(/^["']|["']$/g, ''))) || null;
}

/** A description is one line of at most this many characters. */
export const DESCRIPTION_MAX = 160;

/**
 * Markdown marks in a heading: a code span (its text kept as written: `src/**` + `/*.ts` is a glob),
 * else `*`, `**`, `_`, `__` at the edge of a word (not inside `snake_case`, nor next to the `/`
 * or `.` of a glob written without backticks).
 */
const EMPHASIS_RE = /(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)|(?<![/.*])\*{1,3}(?=[^\s/.*])|(?<=[^\s/.*])\*{1,3}(?![*/.])|(?<![\p{L}\p{N}])_{1,3}(?=\S)|(?<=\S)_{1,3}(?![\p{L}\p{N}])/gu;

/**
 * The one-line `description` of a created file, from the headings it holds (VS Code matches
 * instructions on it too): the distinct titles in source order without Markdown marks (code
 * spans keep their text) or a leading section number, `; `-separated, as many as fit in DESCRIPTION_MAX, then "and N more".
 */
export function describeHeadings(titles: readonly string[], fallback: string): string {
  const distinct: string[] = [];
  const seen = new Set<string>();
  for (const t of titles) {
    // Emphasis marks and a section number ("2. ", "1.3 ", "4) ") are no part of what a heading says.
    const c = t.slice(0, 500).replace(EMPHASIS_RE, (_, tick, code) => (tick ? code : '')).replace(/\s+/g, ' ').trim().replace(/^(?:\d+(?:\.\d+)+\.?|\d+[.)])\s+(?=\S)/, '');
    if (c && !seen.has(c)) (seen.add(c), distinct.push(c));
  }
  if (!distinct.length) return fallback;
  let out = [...distinct[0]!].length > DESCRIPTION_MAX ? `${[...distinct[0]!].slice(0, DESCRIPTION_MAX - 1).join('')}…` : distinct[0]!;
  let used = 1;
  for (; used < distinct.length; used++) {
    const rest = distinct.length - used - 1;
    const next = `${out}; ${distinct[used]}`;
    if (next.length + (rest ? ` and ${rest} more`.length : 0) > DESCRIPTION_MAX) break;
    out = next;
  }
  const more = distinct.length - used;
  return more ? `${out} and ${more} more` : out;
}

/**
 * Render the documented front matter: applyTo always as one double-quoted string, then the
 * description, then excludeAgent when one is given.
 * Written with the `yaml` library, never by concatenating user text.
 */
export function renderFrontMatter(fm: { applyTo: string; description: string; excludeAgent?: string | undefined }, eol: '\n' | '\r\n' | '\r' = '\n'): string {
  return fenced({ applyTo: fm.applyTo, description: fm.description, ...(fm.excludeAgent ? { excludeAgent: fm.excludeAgent } : {}) }, eol);
}

/** The fields as double-quoted YAML strings between `---` fences, each line ended by `eol`. */
function fenced(fields: Record<string, string>, eol: string): string {
  const yaml = stringify(fields, { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', lineWidth: 0 });
  return ['---', ...yaml.replace(/\n$/, '').split('\n'), '---', ''].join(eol);
}

/**
 * Front matter of a path-specific file with no applyTo: Copilot attaches it when its description
 * matches the task (VS Code matches instructions on `description`). Used for Cursor rules that
 * the agent picks by description.
 */
export function renderDescriptionFrontMatter(description: string, eol: '\n' | '\r\n' | '\r' = '\n'): string {
  return fenced({ description }, eol);
}
