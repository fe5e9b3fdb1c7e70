/**
 * The diff of the repository-wide file (`.github/copilot-instructions.md`) before → after a plan,
 * for the plan view. Read from the plan's lossless record, not guessed by a text diff: every
 * byte of the file before is a piece of exactly one output, so a byte that stays is a piece of
 * the repository-wide output (` `), a byte that leaves is a piece of another output (`-`, with the
 * file it moves to), and a generated span of the repository-wide output is new (`+`).
 *
 * Two forms, every line sanitized (controls and bidirectional characters become visible escapes):
 * - whole (the plan view's own data, mcp/tools/plan-view-data.ts): every line of the file, none cut;
 * - bounded (inside onboarding_propose's result, which the model reads too, and the view's
 *   fallback): unchanged runs keep CONTEXT lines at each end, each moved run shows its first
 *   MOVED_SHOWN lines, the whole diff at most MAX_ROWS rows, every line cut at LINE_MAX
 *   characters. What is left out is counted in a `…` row (the full text is in the plan file and
 *   in the destination files).
 */
import type { Plan } from '../schemas/plan.js';
import { REPO_WIDE_PATH } from './copilot-format.js';
import { sanitize, thousands } from './sanitize.js';
import { slicerOf, Utf8Slicer, utf8TextWithoutBom } from './utf8.js';
import { isUtf8 } from 'node:buffer';

export const CONTEXT = 2;
export const MOVED_SHOWN = 12;
export const MAX_ROWS = 400;
export const LINE_MAX = 200;

export interface DiffRow {
  /** ' ' stays, '-' leaves the file (to `to`), '+' is new, '…' stands for `text` (lines left out). */
  op: ' ' | '-' | '+' | '…';
  text: string;
  /** For '-': the file the line moves to (null when no output holds it). */
  to: string | null;
}

export interface RepoWideDiff {
  path: string;
  op: 'create' | 'modify' | 'delete';
  before: { lines: number; chars: number };
  after: { lines: number; chars: number };
  rows: DiffRow[];
}

interface Segment {
  op: ' ' | '-' | '+';
  text: string;
  to: string | null;
}

const decoder = new TextDecoder();

/**
 * The text of byte ranges of one file. A large file has hundreds of pieces: they are sliced from
 * its text, decoded once (core/utf8.ts), not decoded one by one.
 */
class Texts {
  private readonly slicer: Utf8Slicer | null;
  /** `text`: the bytes' text when the caller has it (the file after the plan is a string). */
  constructor(
    private readonly bytes: Uint8Array,
    text?: string,
  ) {
    this.slicer = text === undefined ? slicerOf(bytes) : isUtf8(bytes) ? new Utf8Slicer(bytes, text) : null;
  }
  /** The bytes [a, b) as text (what TextDecoder gives: a BOM at the very start is dropped). */
  of(a: number, b: number): string {
    const s = this.slicer?.slice(a, b) ?? null;
    if (s === null) return decoder.decode(this.bytes.subarray(a, b));
    return a === 0 && s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
  }
}

function lineCount(s: string): number {
  if (s === '') return 0;
  let breaks = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) breaks++;
  // A lone CR (not before LF) ends a line too.
  for (let i = s.indexOf('\r'); i !== -1; i = s.indexOf('\r', i + 1)) if (s.charCodeAt(i + 1) !== 10) breaks++;
  const last = s.charCodeAt(s.length - 1);
  return last === 10 || last === 13 ? breaks : breaks + 1;
}

function linesOf(s: string): string[] {
  const lines = s.split(/\r\n|\n|\r/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The source bytes [a, b) that leave the file, split by the output each part goes to. */
function leaving(plan: Plan, before: Texts, a: number, b: number): Segment[] {
  const elsewhere = plan.lossless.outputs
    .filter((o) => o.path !== REPO_WIDE_PATH)
    .flatMap((o) => o.pieces.filter((p) => p.sourcePath === REPO_WIDE_PATH && p.sourceEnd > a && p.sourceStart < b).map((p) => ({ p, to: o.path })))
    .sort((x, y) => x.p.sourceStart - y.p.sourceStart);
  const out: Segment[] = [];
  let at = a;
  for (const { p, to } of elsewhere) {
    const s = Math.max(p.sourceStart, a);
    const e = Math.min(p.sourceEnd, b);
    if (s > at) out.push({ op: '-', text: before.of(at, s), to: null });
    if (e > s) out.push({ op: '-', text: before.of(Math.max(s, at), e), to });
    at = Math.max(at, e);
  }
  if (at < b) out.push({ op: '-', text: before.of(at, b), to: null });
  return out;
}

/** The file's bytes in order, each run marked as staying, leaving or new. */
function segments(plan: Plan, before: Uint8Array, after: Uint8Array, afterText: string): Segment[] {
  const was = new Texts(before);
  const now = new Texts(after, afterText);
  const output = plan.lossless.outputs.find((o) => o.path === REPO_WIDE_PATH);
  const items = [
    ...(output?.pieces ?? []).map((p) => ({ start: p.outputStart, piece: p, gen: null })),
    ...(output?.generated ?? []).map((g) => ({ start: g.outputStart, piece: null, gen: g })),
  ].sort((x, y) => x.start - y.start);
  const out: Segment[] = [];
  let cursor = 0;
  for (const { piece, gen } of items) {
    if (gen) out.push({ op: '+', text: now.of(gen.outputStart, gen.outputEnd), to: null });
    else if (piece && piece.sourcePath === REPO_WIDE_PATH) {
      if (piece.sourceStart > cursor) out.push(...leaving(plan, was, cursor, piece.sourceStart));
      out.push({ op: ' ', text: was.of(piece.sourceStart, piece.sourceEnd), to: null });
      cursor = Math.max(cursor, piece.sourceEnd);
    } else if (piece) out.push({ op: '+', text: now.of(piece.outputStart, piece.outputEnd), to: null });
  }
  if (cursor < before.length) out.push(...leaving(plan, was, cursor, before.length));
  return out;
}

/** One row per line, as written; a run cut mid-line (a generated line break follows) gives a partial line. */
function rowsOf(segs: Segment[]): DiffRow[] {
  return segs.flatMap((s) => linesOf(s.text).map((line) => ({ op: s.op, text: line, to: s.to })));
}

/** Each line's text sanitized and cut at `lineMax` (the `…` rows are ours). */
function sanitized(rows: DiffRow[], lineMax: number): DiffRow[] {
  return rows.map((r) => (r.op === '…' ? r : { ...r, text: sanitize(r.text, lineMax) }));
}

const plural = (n: number, one: string) => `${thousands(n)} ${one}${n === 1 ? '' : 's'}`;

/** Consecutive segments with one op and one destination, and how many rows (lines) they make. */
interface Run {
  op: Segment['op'];
  to: string | null;
  segs: Segment[];
  rows: number;
}

function runsOf(segs: Segment[]): Run[] {
  const runs: Run[] = [];
  for (const s of segs) {
    const last = runs[runs.length - 1];
    if (last && last.op === s.op && last.to === s.to) {
      last.segs.push(s);
      last.rows += lineCount(s.text);
    } else runs.push({ op: s.op, to: s.to, segs: [s], rows: lineCount(s.text) });
  }
  return runs;
}

/** The first `k` rows of a run (all: Infinity), splitting only the segments they come from. */
function headRows(run: Run, k: number): DiffRow[] {
  const out: DiffRow[] = [];
  for (const s of run.segs) {
    if (out.length >= k) break;
    for (const line of linesOf(s.text)) {
      if (out.length >= k) break;
      out.push({ op: s.op, text: line, to: s.to });
    }
  }
  return out;
}

/** The last `k` rows of a run. */
function tailRows(run: Run, k: number): DiffRow[] {
  const out: DiffRow[][] = [];
  let n = 0;
  for (let i = run.segs.length - 1; i >= 0 && n < k; i--) {
    const s = run.segs[i]!;
    const lines = linesOf(s.text).slice(-(k - n));
    out.unshift(lines.map((line) => ({ op: s.op, text: line, to: s.to })));
    n += lines.length;
  }
  return out.flat();
}

/**
 * Unchanged runs keep CONTEXT lines next to a change; moved runs show their first MOVED_SHOWN
 * lines. Only the lines shown are split out of the text: a large file's rows are counted, not made.
 */
function bound(segs: Segment[]): DiffRow[] {
  const out: DiffRow[] = [];
  const runs = runsOf(segs);
  runs.forEach((run, i) => {
    if (run.op === ' ') {
      const head = i === 0 ? 0 : CONTEXT;
      const tail = i === runs.length - 1 ? 0 : CONTEXT;
      if (run.rows > head + tail + 1) {
        out.push(...headRows(run, head), { op: '…', text: `${plural(run.rows - head - tail, 'unchanged line')}`, to: null }, ...tailRows(run, tail));
      } else out.push(...headRows(run, Infinity));
    } else if (run.op === '-' && run.rows > MOVED_SHOWN + 1) {
      out.push(...headRows(run, MOVED_SHOWN), { op: '…', text: `${plural(run.rows - MOVED_SHOWN, 'more line')} ${run.to ? `moved to ${run.to}` : 'removed'}`, to: run.to });
    } else out.push(...headRows(run, Infinity));
  });
  if (out.length <= MAX_ROWS) return out;
  const shown = out.slice(0, MAX_ROWS - 1);
  return [...shown, { op: '…', text: `${plural(out.length - shown.length, 'more row')} of this diff not shown; every moved line is in its destination file`, to: null }];
}

/**
 * The repository-wide file's diff, or null when the plan leaves it as it is. `before` is the
 * file's bytes when the plan was made (empty when there was none). `whole`: every line, none cut.
 */
export function repoWideDiff(plan: Plan, before: Uint8Array, { whole = false }: { whole?: boolean } = {}): RepoWideDiff | null {
  const op = plan.operations.find((o) => o.path === REPO_WIDE_PATH);
  if (!op) return null;
  const after = new TextEncoder().encode(op.content ?? '');
  // The file before, as TextDecoder reads it; its text is decoded once for the analysis and the plan (core/utf8.ts).
  const b = utf8TextWithoutBom(before);
  const a = op.content ?? '';
  const nonEmpty = segments(plan, before, after, a).filter((s) => s.text !== '');
  return {
    path: REPO_WIDE_PATH,
    op: op.op,
    before: { lines: lineCount(b), chars: b.length },
    after: { lines: lineCount(a), chars: a.length },
    // Bounded: the rows are chosen by their kind alone, so only the rows kept are sanitized.
    rows: whole ? sanitized(rowsOf(nonEmpty), Number.MAX_SAFE_INTEGER) : sanitized(bound(nonEmpty), LINE_MAX),
  };
}
