/**
 * The one module that owns GitHub Copilot's instruction file format.
 *
 * Docs encoded here (GitHub Docs, "Adding repository custom instructions for GitHub Copilot"):
 * - repository-wide: `.github/copilot-instructions.md`, plain Markdown;
 * - path-specific: `.github/instructions/NAME.instructions.md` with YAML front matter
 *   `applyTo: "glob,glob"` (one string, comma-separated globs) and an optional `description`.
 * - Copilot code review reads only the first 4,000 characters of an instruction file.
 *
 * We read every shape found in the wild (unquoted `*…` values, which are YAML aliases and
 * break strict parsers; YAML lists; brace groups containing commas) and write only the documented one.
 */
import { Document, Scalar, parseDocument, isAlias, isSeq, isScalar } from 'yaml';
import { stringifyString, type StringifyContext } from 'yaml/util';

export const REPO_WIDE_PATH = '.github/copilot-instructions.md';
export const INSTRUCTIONS_DIR = '.github/instructions';
export const INSTRUCTIONS_SUFFIX = '.instructions.md';
export const CODE_REVIEW_CHAR_LIMIT = 4000;

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

export type ApplyToShape = 'quoted-string' | 'unquoted-string' | 'alias-like' | 'yaml-list' | 'missing' | 'other';

export interface ParsedFrontMatter {
  /** Byte-free: character offsets of the front matter block in the decoded text (including fences). */
  present: boolean;
  applyTo: string | null;
  applyToShape: ApplyToShape;
  description: string | null;
  /** Problems reading it (invalid YAML etc.). */
  errors: string[];
  /** Length in characters of the front matter block including fences and the newline after the closing fence. */
  length: number;
}

const FM_RE = /^\uFEFF?---[ \t]*(\r\n|\n|\r)([\s\S]*?)(?:\r\n|\n|\r)---[ \t]*(\r\n|\n|\r|$)/;

/** Read the YAML front matter of an instruction file leniently. */
export function readFrontMatter(text: string): ParsedFrontMatter {
  const m = FM_RE.exec(text);
  if (!m) return { present: false, applyTo: null, applyToShape: 'missing', description: null, errors: [], length: 0 };
  const body = m[2] ?? '';
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
  return { present: true, applyTo, applyToShape: shape, description, errors, length: m[0].length };
}

/**
 * Render the documented front matter: applyTo always as one double-quoted string.
 * Written with the `yaml` library, never by concatenating user text.
 *
 * Each value goes through yaml's own scalar stringifier with the context `stringify()` would
 * give a value of a top-level block mapping under these options. The output is the same as
 * `stringify({ applyTo, description }, FM_OPTIONS)`, but without building a Document and its
 * schema per call: a large monolith creates hundreds of files, and that was a tenth of the plan.
 */
export function renderFrontMatter(fm: { applyTo: string; description: string }, eol: '\n' | '\r\n' | '\r' = '\n'): string {
  // Keys are fixed plain words; only the values come from the user.
  const lines = [`applyTo: ${yamlValue('applyTo', fm.applyTo)}`, `description: ${yamlValue('description', fm.description)}`];
  // A double-quoted value spans lines only for a line break in the text (never here, but keep
  // the layout yaml chose), so split as the rendered document would be.
  return ['---', ...lines.join('\n').split('\n'), '---', ''].join(eol);
}

const FM_OPTIONS = { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', lineWidth: 0 } as const;

let fmContext: StringifyContext | null = null;

/**
 * yaml's stringify context for a value of a top-level block mapping (stringifyPair: implicitKey
 * off, indent one step in), with yaml's defaults for every option FM_OPTIONS leaves unset.
 */
function frontMatterContext(): StringifyContext {
  fmContext ??= {
    anchors: new Set(),
    doc: new Document(),
    flowCollectionPadding: ' ',
    indent: '  ',
    indentStep: '  ',
    inFlow: null,
    implicitKey: false,
    allNullValues: false,
    actualString: true,
    options: {
      blockQuote: true,
      commentString: (str: string) => str.replace(/^(?!$)(?: $)?/gm, '#'),
      defaultKeyType: FM_OPTIONS.defaultKeyType,
      defaultStringType: FM_OPTIONS.defaultStringType,
      directives: null,
      doubleQuotedAsJSON: false,
      doubleQuotedMinMultiLineLength: 40,
      falseStr: 'false',
      flowCollectionPadding: true,
      indentSeq: true,
      lineWidth: FM_OPTIONS.lineWidth,
      minContentWidth: 20,
      nullStr: 'null',
      simpleKeys: false,
      singleQuote: null,
      trailingComma: false,
      trueStr: 'true',
      verifyAliasOrder: true,
    },
  };
  return fmContext;
}

/**
 * Rendered applyTo values: a monolith's files share a handful of applyTo values (descriptions
 * differ per file), and yaml's scalar stringifier is most of renderFrontMatter's time.
 * Bounded; a pure function of the value, so caching changes nothing.
 */
const applyToYaml = new Map<string, string>();
const APPLY_TO_CACHE_SIZE = 256;

function yamlValue(key: 'applyTo' | 'description', value: string): string {
  if (key === 'applyTo') {
    const hit = applyToYaml.get(value);
    if (hit !== undefined) return hit;
  }
  // indentAtStart as stringifyPair sets it (`key:` plus the space); it only matters for folding.
  const out = stringifyString(new Scalar(value), { ...frontMatterContext(), indentAtStart: key.length + 2 });
  if (key === 'applyTo') {
    if (applyToYaml.size >= APPLY_TO_CACHE_SIZE) applyToYaml.clear();
    applyToYaml.set(value, out);
  }
  return out;
}
