/**
 * The bytes of a plan's outputs: the repository-wide file without what moves, and one new file
 * per destination. Source bytes are copied verbatim, in source order, and recorded as pieces;
 * everything else an output needs is generated and recorded as a generated span, so the
 * lossless proof can tell the two apart:
 * - the repository-wide file keeps its BOM and front matter (always), then the sections that
 *   stay repository-wide, in source order;
 * - each path-specific file is generated front matter, then its sections' bytes in source order;
 *   a proposed topic section (no heading of its own) gets a generated `## <Topic>` heading, and
 *   a part of a split section that arrives without the text before it gets a generated copy of
 *   its parent's heading, so the heading structure stays valid;
 * - a line break is generated where a piece cut mid-line would run into the next one.
 */
import { isUtf8 } from 'node:buffer';
import type { Section, SourceFile } from './types.js';
import type { Operation, PlanBody, Piece } from '../schemas/plan.js';
import { describeHeadings, frontMatterBlock, instructionPath, joinApplyTo, renderFrontMatter } from './copilot-format.js';
import { sha256Hex } from './canonical.js';
import type { Utf8Slicer } from './utf8.js';
import type { ParentHeading } from './subsections.js';

type Eol = '\n' | '\r\n' | '\r';
type GeneratedWhat = 'front-matter' | 'generated-heading' | 'separator';
type Generated = PlanBody['lossless']['outputs'][number]['generated'][number];

/** What the outputs need of a plan decision. */
export interface Member {
  section: Section;
  /** null = repository-wide. */
  slug: string | null;
  parent: ParentHeading | null;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The dominant line ending of a file (ties and files without line breaks: LF). */
export function dominantEol(bytes: Uint8Array): Eol {
  if (bytes.indexOf(0x0d) < 0) return '\n';
  let lf = 0;
  let crlf = 0;
  let cr = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === 0x0a) lf++;
    else if (b === 0x0d) {
      if (bytes[i + 1] === 0x0a) {
        crlf++;
        i++;
      } else cr++;
    }
  }
  if (crlf > lf && crlf >= cr) return '\r\n';
  if (cr > lf && cr > crlf) return '\r';
  return '\n';
}


// ---------------------------------------------------------------- outputs

interface OutputDraft {
  path: string;
  parts: Array<{ kind: 'piece'; start: number; end: number } | { kind: 'gen'; text: string; bytes: Buffer; what: GeneratedWhat }>;
}

function isNewline(b: number | undefined): boolean {
  return b === 0x0a || b === 0x0d;
}

class OutputBuilder {
  readonly parts: OutputDraft['parts'] = [];
  /** Last byte written, and whether only the BOM has been written so far. */
  private last: number | undefined;
  private onlyBom = true;
  constructor(
    private readonly src: Buffer,
    private readonly eol: Eol,
    private readonly bomLen: number,
  ) {}
  private get empty(): boolean {
    return this.parts.length === 0;
  }
  gen(text: string, what: GeneratedWhat): void {
    if (!text) return;
    const bytes = Buffer.from(text, 'utf8');
    this.parts.push({ kind: 'gen', text, bytes, what });
    this.last = bytes[bytes.length - 1];
    this.onlyBom = false;
  }
  /** Keep whatever follows on a line of its own (only needed after a piece cut mid-line). */
  private separate(): void {
    if (!this.empty && !this.onlyBom && !isNewline(this.last)) this.gen(this.eol, 'separator');
  }
  piece(start: number, end: number): void {
    if (end <= start) return;
    const prev = this.parts[this.parts.length - 1];
    if (prev && prev.kind === 'piece' && prev.end === start) {
      prev.end = end;
    } else {
      this.separate();
      this.parts.push({ kind: 'piece', start, end });
    }
    this.last = this.src[end - 1];
    this.onlyBom = this.onlyBom && start === 0 && end <= this.bomLen;
  }
  heading(title: string, level = 2): void {
    this.separate();
    this.gen(`${'#'.repeat(Math.min(Math.max(level, 1), 6))} ${title.replace(/[\r\n]+/g, ' ').trim() || 'Section'}${this.eol}${this.eol}`, 'generated-heading');
  }
  /**
   * The members' bytes in source order. A member arriving without the text before it gets a
   * heading: a proposed topic section its topic (`topics`: path-specific files only), a part of
   * a split section its parent's, unless the part before it in this output shares that parent.
   */
  members(items: Array<{ start: number; end: number; m: Member | null }>, topics: boolean): void {
    items.sort((a, c) => a.start - c.start || a.end - c.end);
    let prev: Member | null = null;
    for (const { start, end, m } of items) {
      if (end <= start) continue;
      if (m && m !== prev) {
        if (topics && m.section.proposed) this.heading(m.section.title);
        else if (m.parent && m.section.id !== m.parent.id && prev?.parent?.id !== m.parent.id) this.heading(m.parent.title, m.parent.level);
      }
      this.piece(start, end);
      prev = m;
    }
  }
}

/**
 * An output's bytes, its text, and the proof's records of them. `slicer` holds the source's text
 * when it is valid UTF-8: the text is then joined from slices of it, which analyze decoded once,
 * else decoded from the bytes (on a 145 KB file with non-ASCII text, joining saves about 0.2 ms
 * of the 2 ms decoding takes: bench/notes.md).
 */
function finishOutput(src: Buffer, srcPath: string, parts: OutputDraft['parts'], slicer: Utf8Slicer | null): { bytes: Buffer; content: string; pieces: Piece[]; generated: Generated[] } {
  const chunks: Buffer[] = [];
  const texts: Array<string | null> = [];
  const pieces: Piece[] = [];
  const generated: Generated[] = [];
  let pos = 0;
  for (const p of parts) {
    if (p.kind === 'piece') {
      chunks.push(src.subarray(p.start, p.end));
      texts.push(slicer ? slicer.slice(p.start, p.end) : null);
      pieces.push({ sourcePath: srcPath, sourceStart: p.start, sourceEnd: p.end, outputStart: pos, outputEnd: pos + (p.end - p.start) });
      pos += p.end - p.start;
    } else {
      chunks.push(p.bytes);
      texts.push(p.text);
      generated.push({ outputStart: pos, outputEnd: pos + p.bytes.length, what: p.what });
      pos += p.bytes.length;
    }
  }
  const joined = Buffer.concat(chunks, pos);
  // Slices cut at character boundaries of valid UTF-8 decode, joined, to what the joined bytes decode to.
  const content = texts.every((t) => t !== null) ? texts.join('') : joined.toString('utf8');
  // What gets written is the content string encoded again; verifyLossless runs on exactly that.
  // Valid UTF-8 survives decode + encode unchanged, so only other bytes need the round trip.
  const bytes = isUtf8(joined) ? joined : Buffer.from(content, 'utf8');
  return { bytes, content, pieces, generated };
}

export interface Outputs {
  operations: Operation[];
  lossless: PlanBody['lossless']['outputs'];
  /** Output path -> its bytes (null: deleted), for the lossless check. */
  bytes: Map<string, Uint8Array | null>;
}

/** Step 3, outputs: the repository-wide file without what moves, and one new file per group. */
export function buildOutputs(repo: SourceFile, src: Buffer, decisions: readonly Member[], groups: ReadonlyMap<string, { members: Member[]; globs: string[]; excludeAgent?: string }>, slicer: Utf8Slicer | null = null): Outputs {
  const out: Outputs = { operations: [], lossless: [], bytes: new Map() };
  const eol = dominantEol(src);
  // Bytes that never move: the BOM (one in the middle of a generated file would be a stray U+FEFF) and the file's own front matter.
  const { bom: bomLen, end: fmEnd } = frontMatterBlock(src);
  const pinned = Math.min(fmEnd, src.length);

  const after = (m: Member, items: Array<{ start: number; end: number; m: Member | null }>): void => {
    for (const r of m.section.ranges) if (r.end > pinned) items.push({ start: Math.max(r.start, pinned), end: r.end, m });
  };
  const repoWide = new OutputBuilder(src, eol, bomLen);
  const stay: Array<{ start: number; end: number; m: Member | null }> = [{ start: 0, end: pinned, m: null }];
  for (const d of decisions) if (d.slug === null) after(d, stay);
  repoWide.members(stay, false);

  const created: Array<{ path: string; parts: OutputDraft['parts'] }> = [];
  for (const [slug, { members, globs, excludeAgent }] of groups) {
    const b = new OutputBuilder(src, eol, bomLen);
    const description = describeHeadings(members.map((m) => m.section.title), slug);
    b.gen(renderFrontMatter({ applyTo: joinApplyTo(globs), description, excludeAgent }, eol), 'front-matter');
    const items: Array<{ start: number; end: number; m: Member | null }> = [];
    for (const m of members) after(m, items);
    b.members(items, true);
    created.push({ path: instructionPath(slug), parts: b.parts });
  }
  created.sort((a, b) => cmp(a.path, b.path));

  const repoOut = finishOutput(src, repo.path, repoWide.parts, slicer);
  if (repoOut.bytes.length === 0) {
    out.operations.push({ op: 'delete', path: repo.path, size: 0, sha256: null, content: null, previousSha256: repo.sha256 });
    out.bytes.set(repo.path, null);
  } else {
    out.operations.push({ op: 'modify', path: repo.path, size: repoOut.bytes.length, sha256: sha256Hex(repoOut.bytes), content: repoOut.content, previousSha256: repo.sha256 });
    out.lossless.push({ path: repo.path, pieces: repoOut.pieces, generated: repoOut.generated });
    out.bytes.set(repo.path, repoOut.bytes);
  }
  for (const c of created) {
    const f = finishOutput(src, repo.path, c.parts, slicer);
    out.operations.push({ op: 'create', path: c.path, size: f.bytes.length, sha256: sha256Hex(f.bytes), content: f.content, previousSha256: null });
    out.lossless.push({ path: c.path, pieces: f.pieces, generated: f.generated });
    out.bytes.set(c.path, f.bytes);
  }
  return out;
}
