/**
 * Possible contradictions in an instruction file: statements that pull in opposite directions
 * ("always X" and "never X", tabs and spaces, two indentation widths, single and double quotes,
 * semicolons or none). Conservative on purpose: each warning must be worth a human's minute, so
 * statements are compared only within the same languages and hedged or negated ones are left out.
 */
import type { Problem } from './types.js';

/** Languages and file kinds a rule may be scoped to; a statement naming a different one is not in conflict. */
const SCOPES: Array<[string, RegExp]> = [
  ['js', /\b(javascript|typescript|js|ts|jsx|tsx|node(\.js)?|react|vue|angular|svelte|deno|bun)\b/],
  ['python', /\b(python|py|django|flask|fastapi|pytest)\b/],
  ['go', /\b(golang|go (code|files?|modules?|packages?|source))\b|\bgofmt\b|\*\.go\b/],
  ['rust', /\b(rust|cargo|rs)\b/],
  ['jvm', /\b(java|kotlin|scala|gradle|maven)\b/],
  ['dotnet', /(c#|\bcsharp\b|\.net\b|\bdotnet\b|\bf#)/],
  ['c', /(\bc\+\+|\bcpp\b|\bc\b files?|\bclang\b)/],
  ['ruby', /\b(ruby|rails|rb)\b/],
  ['php', /\bphp\b/],
  ['yaml', /\b(yaml|yml)\b/],
  ['json', /\bjson\b/],
  ['markdown', /\b(markdown|md)\b/],
  ['make', /\b(makefiles?|make)\b/],
  ['shell', /\b(shell|bash|sh|zsh|powershell|ps1)\b/],
  ['css', /\b(css|scss|sass|less|tailwind)\b/],
  ['html', /\b(html|jsx|templates?)\b/],
  ['sql', /\bsql\b/],
  ['swift', /\b(swift|objective-c)\b/],
  ['terraform', /\b(terraform|hcl)\b/],
  ['lua', /\blua\b/],
  ['xml', /\b(xml|xaml|csproj)\b/],
];
/** The SCOPES keys a lower-cased line or title names, comma-joined ('' for none). */
function scopesOf(lower: string): string {
  const keys: string[] = [];
  for (const [key, re] of SCOPES) if (re.test(lower)) keys.push(key);
  return keys.join(',');
}

interface Statement {
  rule: string;
  value: string;
  line: number;
  quote: string;
  /** Languages named by the line, else by its section title, else '' (worked out only for rules stated two ways). */
  scope: () => string;
}

const HEDGE = /\b(not|almost|nearly|hardly|rarely|if|unless|when|should)\s+$/;

function clip(s: string): string {
  const t = s.trim().replace(/\s+/g, ' ');
  return t.length > 80 ? `${t.slice(0, 77)}…` : t;
}

/** The object of an always/never statement, normalised; null when it is not short and plain. */
function objectPhrase(raw: string): string | null {
  let tokens = 1;
  for (let i = 0; i < raw.length; i++) if (raw.charCodeAt(i) === 0x20 && ++tokens > 12) return null; // far too long anyway
  const phrase = raw
    .replace(/[*_`"“”]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^(to|be|you|we)\s+/, '');
  let words = 1;
  for (let i = 0; i < phrase.length; i++) if (phrase.charCodeAt(i) === 0x20 && ++words > 6) return null;
  if (!phrase || !/[a-z]/.test(phrase)) return null;
  return phrase;
}

/** Statements of one line (lower-cased); `titleScope` gives the scopes of the line's section title. */
function statementsOf(lower: string, lineNo: number, titleScope: () => string, emit: (s: Statement) => void): void {
  let scopeMemo: string | null = null;
  const scope = (): string => (scopeMemo ??= scopesOf(lower) || titleScope());
  const add = (rule: string, value: string, quote: string): void => emit({ rule, value, line: lineNo, quote, scope });

  // always X / never X, X up to the end of the clause
  if (lower.includes('always') || lower.includes('never')) {
    for (const m of lower.matchAll(/\b(always|never)\s+([^.;:!?()[\]\n,]+)/g)) {
      if (HEDGE.test(lower.slice(Math.max(0, m.index - 12), m.index))) continue;
      const obj = objectPhrase(m[2] ?? '');
      if (obj) add(`always-never:${obj}`, m[1]!, m[0]);
    }
  }

  const negatedBefore = (idx: number): boolean => /\b(no|not|never|don'?t|do not|avoid|instead of|rather than|without|nor)\s+(\w+\s+){0,2}$/.test(lower.slice(Math.max(0, idx - 40), idx));

  // indentation: tabs vs spaces, and the width in spaces
  if (lower.includes('tab') || lower.includes('space') || lower.includes('indent')) {
    const tabs = /\b(?:use|using|uses|indent(?:ed|ation)?(?: with| using)?|prefer)\s+(?:hard\s+)?tabs?\b|\btabs? (?:for|as) indentation\b|\btab[- ]indent(?:ed|ation)?\b/.exec(lower);
    if (tabs && !negatedBefore(tabs.index)) add('indent-style', 'tabs', tabs[0]);
    const width =
      /\b(\d)[- ]?(?:spaces?|space)\b[^.;\n]{0,25}?\bindent/.exec(lower) ??
      /\bindent(?:ation|ed|s)?\b[^.;\n]{0,25}?\b(\d)[- ]?(?:spaces?)\b/.exec(lower) ??
      /\b(?:use|using|prefer)\s+(\d)\s+spaces\b/.exec(lower);
    if (width && !negatedBefore(width.index)) {
      add('indent-style', 'spaces', width[0]);
      add('indent-width', width[1]!, width[0]);
    } else {
      const spaces = /\b(?:use|using|uses|indent(?:ed|ation)?(?: with| using)?|prefer)\s+spaces\b|\bspaces (?:for|as) indentation\b|\bspaces,? not tabs\b/.exec(lower);
      if (spaces && !negatedBefore(spaces.index)) add('indent-style', 'spaces', spaces[0]);
    }
  }

  // string quotes
  if (lower.includes('quot')) {
    const quotes = /\b(?:use|using|prefer)\s+(single|double)[- ]quot(?:es|ed|e)\b/.exec(lower);
    if (quotes && !negatedBefore(quotes.index)) add('quotes', quotes[1]!, quotes[0]);
  }

  // semicolons
  if (lower.includes('semicolon')) {
    const semiYes = /\b(?:always\s+)?(?:use|add|include|end (?:statements|lines) with)\s+semicolons\b/.exec(lower);
    const semiNo = /\b(?:no|omit|without|avoid|skip)\s+(?:trailing\s+)?semicolons\b/.exec(lower);
    if (semiYes && !semiNo && !negatedBefore(semiYes.index)) add('semicolons', 'yes', semiYes[0]);
    if (semiNo && !semiYes) add('semicolons', 'no', semiNo[0]);
  }
}

const RULE_NAMES: Record<string, string> = {
  'indent-width': 'two indentation widths',
  'indent-style': 'tabs and spaces for indentation',
  quotes: 'single and double quotes',
  semicolons: 'semicolons and no semicolons',
};
const KEYWORDS = /\b(?:always|never|tabs?\b|spaces?\b|indent|quot|semicolon)/gi;
const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/gm;

/**
 * Statements that pull in opposite directions: "always X" and "never X" for the same short
 * X; tabs vs spaces; two indentation widths; single vs double quotes; semicolons or none.
 * Two statements conflict only if they name the same languages (on their line, else in
 * their section's title). Lines inside code fences or indented code, and lines before
 * `firstLine` (front matter), are not read. One pass: only lines holding a keyword are looked at.
 */
export function findContradictions(path: string, text: string, sectionTitleAtLine: (line: number) => string, firstLine = 1): Problem[] {
  const norm = text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;

  // Fenced code: [start, end) string ranges, found from the (few) fence lines.
  const fences: number[] = [];
  let open: { ch: string; len: number; start: number } | null = null;
  FENCE_LINE.lastIndex = 0;
  for (let m = FENCE_LINE.exec(norm); m; m = FENCE_LINE.exec(norm)) {
    const marker = m[1]!;
    const rest = m[2] ?? '';
    if (open) {
      if (marker[0] === open.ch && marker.length >= open.len && /^[`~]*\s*$/.test(rest)) {
        fences.push(open.start, m.index + m[0].length);
        open = null;
      }
    } else if (!(marker[0] === '`' && rest.includes('`'))) {
      open = { ch: marker[0]!, len: marker.length, start: m.index };
    }
  }
  if (open) fences.push(open.start, norm.length);

  const statements: Statement[] = [];

  let line = 1; // line number of position `counted`
  let counted = 0;
  let fence = 0;
  KEYWORDS.lastIndex = 0;
  for (let m = KEYWORDS.exec(norm); m; m = KEYWORDS.exec(norm)) {
    const at = m.index;
    const lineStart = norm.lastIndexOf('\n', at - 1) + 1;
    let lineEnd = norm.indexOf('\n', at);
    if (lineEnd < 0) lineEnd = norm.length;
    KEYWORDS.lastIndex = lineEnd; // one visit per line
    for (let p = norm.indexOf('\n', counted); p >= 0 && p < lineStart; p = norm.indexOf('\n', p + 1)) line++;
    counted = lineStart;
    while (fence < fences.length && fences[fence + 1]! <= lineStart) fence += 2;
    if (fence < fences.length && fences[fence]! <= lineStart) continue;
    if (line < firstLine) continue;
    const c0 = norm.charCodeAt(lineStart);
    if (c0 === 0x09 || norm.startsWith('    ', lineStart)) continue; // indented code (or a continuation)
    const lineNo = line;
    statementsOf(norm.slice(lineStart, lineEnd).toLowerCase(), lineNo, () => scopesOf(sectionTitleAtLine(lineNo).toLowerCase()), (st) => statements.push(st));
  }

  // A rule stated one way only cannot conflict: scopes are worked out for the others.
  const values = new Map<string, Set<string>>();
  for (const st of statements) values.set(st.rule, (values.get(st.rule) ?? new Set()).add(st.value));
  const firstByKey = new Map<string, Statement & { scoped: string }>();
  const conflicts = new Map<string, [Statement & { scoped: string }, Statement]>();
  for (const st of statements) {
    if (values.get(st.rule)!.size < 2) continue;
    const scoped = st.scope();
    const key = `${st.rule}\u0000${scoped}`;
    const first = firstByKey.get(key);
    if (!first) firstByKey.set(key, { ...st, scoped });
    else if (!conflicts.has(key) && st.value !== first.value && st.line !== first.line) conflicts.set(key, [first, st]);
  }

  const out: Problem[] = [];
  for (const [first, other] of conflicts.values()) {
    const what = first.rule.startsWith('always-never:') ? `"always" and "never" for "${first.rule.slice('always-never:'.length)}"` : RULE_NAMES[first.rule];
    out.push({
      code: 'POSSIBLE_CONTRADICTION',
      severity: 'warning',
      message: `Possible contradiction, ${what}${first.scoped ? ` (${first.scoped})` : ''}: "${clip(first.quote)}" (line ${first.line}) vs "${clip(other.quote)}" (line ${other.line}).`,
      path,
      lines: [first.line, other.line],
    });
  }
  return out.sort((a, b) => a.lines[0]! - b.lines[0]! || a.lines[1]! - b.lines[1]!);
}
