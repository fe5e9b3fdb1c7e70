/**
 * The one sanitizer for untrusted text a person reads: file names, headings, globs, comments,
 * client names, trace contents. Every form and every line of terminal output passes the
 * strings it did not write itself through here.
 *
 * Security: a heading or file name can carry terminal escape sequences (ESC, OSC 8 hyperlinks),
 * bidirectional overrides (U+202E makes `txt.exe` read as `exe.txt`), line separators that
 * forge extra lines in a form, or simply be 1 MB long and push the real question off the
 * screen. Such characters become visible escapes (`\x1B`, `\u202E`) and long strings are cut
 * with an ellipsis and their size, so what a person approves is what they can read.
 */

/**
 * A count with thousands separators, as `toLocaleString('en-US')` writes it (`12,345`). Written
 * out because a process's first toLocaleString call loads the locale data: about 40 ms, more
 * than the rest of `copilot-onboarding analyze` on a small repository. Non-integers (never a
 * count) still go through toLocaleString.
 */
export function thousands(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ',');
  return n < 0 || Object.is(n, -0) ? `-${digits}` : digits;
}

/** C0 and C1 controls, DEL, bidi embeddings/overrides/isolates and marks, line/paragraph separators. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/gu;

/** Whether `value` holds a character that sanitize() would escape (control, DEL, C1, bidi, separator). */
export function hasUnsafe(value: string): boolean {
  UNSAFE.lastIndex = 0;
  const found = UNSAFE.test(value);
  UNSAFE.lastIndex = 0;
  return found;
}

function visible(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  return cp <= 0xff ? `\\x${cp.toString(16).toUpperCase().padStart(2, '0')}` : `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Default longest untrusted string shown in full (characters). */
const MAX_SHOWN_CHARS = 160;

/**
 * Make an untrusted string safe to show: every control or bidi character becomes a visible
 * escape; a string longer than `max` characters is cut, ending in `… (N bytes)` with its
 * original UTF-8 size. Tabs and newlines are escaped too: one untrusted value is one line.
 */
export function sanitize(value: string, max = MAX_SHOWN_CHARS): string {
  let s = value;
  let cut = false;
  if (s.length > max) { // safety: sanitize-bounded
    // Cut before escaping (the size note is about the original), never inside a surrogate pair.
    s = s.slice(0, /[\ud800-\udbff]/.test(s[max - 1] ?? '') ? max - 1 : max);
    cut = true;
  }
  s = s.replace(UNSAFE, visible); // safety: sanitize-escapes
  return cut ? `${s}… (${thousands(Buffer.byteLength(value, 'utf8'))} bytes)` : s;
}

/**
 * A CommonMark code span holding `value` sanitized: the fence is one backtick longer than the
 * longest run of backticks inside, and padded with a space when the value starts or ends with
 * a backtick (CommonMark 6.1), so the text inside is shown literally — `**` stays `**` and
 * `<id>` stays `<id>` — and reads naturally as plain text too.
 */
export function code(value: string, max = MAX_SHOWN_CHARS): string {
  const s = sanitize(value, max);
  if (s === '') return '` `';
  let longest = 0;
  for (const m of s.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = '`'.repeat(longest + 1);
  const pad = s.startsWith('`') || s.endsWith('`') || (s.startsWith(' ') && s.endsWith(' ') && s.trim() !== '') ? ' ' : '';
  return `${fence}${pad}${s}${pad}${fence}`;
}

/**
 * Untrusted prose outside a code span (a problem message, a reason): sanitized, with the
 * characters that CommonMark would turn into emphasis, links, HTML or line structure
 * backslash-escaped. Plain-text clients then show a backslash before those few characters,
 * which keeps the words readable and never changes their meaning.
 */
export function prose(value: string, max = MAX_SHOWN_CHARS * 2): string {
  return sanitize(value, max).replace(/[\\`*_[\]<>&|~#]/g, (c) => `\\${c}`);
}

/**
 * Terminal output built from untrusted strings: every line sanitized (no length cut), so a
 * trace, a state file or a file name cannot replay escape sequences or reorder what is shown.
 */
export function sanitizeLines(text: string): string {
  return text
    .split('\n')
    .map((l) => sanitize(l, Number.MAX_SAFE_INTEGER))
    .join('\n');
}

const UNSAFE_IN_JSON = /[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/gu;
/**
 * JSON for a terminal: JSON.stringify escapes C0 controls but leaves DEL, C1, bidi and line
 * separator characters raw; those become `\uXXXX` escapes too, which parse to the same value.
 */
export function safeJson(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(UNSAFE_IN_JSON, (ch) => `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}
