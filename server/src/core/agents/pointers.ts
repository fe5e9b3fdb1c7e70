/**
 * One source of truth, chosen by a person (issue 21, core/agents/shared-rules.ts): with the
 * override `{ "file": "CLAUDE.md", "pointer": "@AGENTS.md" }` (or `GEMINI.md`, or the pointer
 * `@.github/copilot-instructions.md`), the rules of that file that are byte-for-byte copies of
 * rules in the target (the root `AGENTS.md`, or Copilot's repository-wide file as the plan leaves
 * it) are taken out of it, and the file imports the target instead (`@<path>`, the documented
 * pointer form: Claude Code and Gemini CLI import a file's content at `@path`). Nothing else
 * changes.
 *
 * Lossless: every byte of the file is either kept in its new content (a piece) or an exact copy of
 * a byte range of the target that the plan names (`agents.pointers[].copies`): of the target as it
 * is when the plan does not change it, of its new content when the plan does. checkPointers
 * verifies it, with the plan's contents before writing and with the files on disk after
 * (core/lossless.ts calls it), and that the new file holds the import line.
 */
import type { Operation, PlanBody } from '../../schemas/plan.js';
import type { Snapshot } from '../types.js';
import { sha256Hex } from '../canonical.js';
import { dominantEol } from '../plan-outputs.js';
import { ruleBlocks } from './duplicates.js';
import { readRuleFrontMatter } from './rule-front-matter.js';
import { importLines } from './imports.js';

type Output = PlanBody['lossless']['outputs'][number];
export type PointerRecord = NonNullable<NonNullable<PlanBody['agents']>['pointers']>[number];

const eolLen = (b: Uint8Array, at: number): number => (b[at] === 0x0d && b[at + 1] === 0x0a ? 2 : b[at] === 0x0a || b[at] === 0x0d ? 1 : 0);

/** What the file points to: the target's path and its bytes as the plan leaves them (null: it will not exist, or is not a regular file). */
export interface PointerTarget {
  path: string;
  bytes: Uint8Array | null;
}

/** The file without its copies of the target's rules, importing the target instead; or why not. */
export function pointerPlan(snapshot: Snapshot, file: string, target: PointerTarget): { operation: Operation; output: Output; bytes: Buffer; record: PointerRecord } | { keep: string } {
  const src = snapshot.sources.find((s) => s.path === file && s.linkTo === undefined);
  const pointer = `@${target.path}`;
  if (!src) return { keep: `${file} is not a regular file of the workspace, so it cannot point to ${target.path}` };
  if (!target.bytes) return { keep: `there is no ${target.path} (a regular file, after the plan) for ${file} to point to` };
  const a = Buffer.from(target.bytes);
  const c = Buffer.from(src.bytes);
  const byText = new Map<string, { start: number; end: number }>();
  for (const b of ruleBlocks(target.path, target.bytes, readRuleFrontMatter(target.bytes).end)) {
    const key = a.toString('latin1', b.start, b.end);
    if (!byText.has(key)) byText.set(key, { start: b.start, end: b.end });
  }
  const bodyStart = readRuleFrontMatter(src.bytes).end;
  const copies: PointerRecord['copies'] = [];
  for (const b of ruleBlocks(file, src.bytes, bodyStart)) {
    const same = byText.get(c.toString('latin1', b.start, b.end));
    if (!same) continue;
    // Take the line break after the copy too (and a blank line), as far as the target's copy is followed by the same bytes.
    let m = 0;
    for (let k = 0; k < 2; k++) {
      const n = eolLen(c, b.end + m);
      if (!n || eolLen(a, same.end + m) !== n || !c.subarray(b.end + m, b.end + m + n).equals(a.subarray(same.end + m, same.end + m + n))) break;
      m += n;
    }
    copies.push({ start: b.start, end: b.end + m, sameAs: { path: target.path, start: same.start, end: same.end + m } });
  }
  if (!copies.length) return { keep: `no rule of ${file} is a byte-for-byte copy of one in ${target.path}, so nothing is replaced by an import` };
  const eol = dominantEol(src.bytes);
  const hasImport = importLines(c.toString('utf8')).has(pointer);
  const parts: Buffer[] = [];
  const pieces: Output['pieces'] = [];
  const generated: Output['generated'] = [];
  let at = 0;
  const keep = (start: number, end: number) => {
    if (end <= start) return;
    parts.push(c.subarray(start, end));
    pieces.push({ sourcePath: file, sourceStart: start, sourceEnd: end, outputStart: at, outputEnd: at + end - start });
    at += end - start;
  };
  // The import takes the place of the first copy.
  let pos = 0;
  for (const cp of copies) {
    keep(pos, cp.start);
    if (!hasImport && cp === copies[0]) {
      // On a line of its own: after a BOM (or anything else not ending a line), a line break first.
      const prev = parts.length ? parts[parts.length - 1]! : null;
      const lead = prev && prev.length && prev[prev.length - 1] !== 0x0a && prev[prev.length - 1] !== 0x0d ? eol : '';
      const line = Buffer.from(`${lead}${pointer}${eol}${eol}`, 'utf8');
      parts.push(line);
      generated.push({ outputStart: at, outputEnd: at + line.length, what: 'pointer' });
      at += line.length;
    }
    pos = cp.end;
  }
  keep(pos, c.length);
  const bytes = Buffer.concat(parts);
  if (!importLines(bytes.toString('utf8')).has(pointer)) return { keep: `the import line ${pointer} would sit inside what Claude Code and Gemini CLI read as code (an unmatched backtick or an open fence before it), so ${file} keeps its copies` };
  return {
    operation: { op: 'modify', path: file, size: bytes.length, sha256: sha256Hex(bytes), content: bytes.toString('utf8'), previousSha256: src.sha256 },
    output: { path: file, pieces, generated },
    bytes,
    record: { file, pointer, copies },
  };
}

/**
 * For each pointed file: its kept pieces and the named copies tile it exactly, each copy's bytes
 * equal the target's range (the target as it is when the plan does not change it, else its new
 * content in `outputs`; a deleted target holds nothing), and the new file (`outputs`: planned
 * contents or what is on disk) holds the import line.
 */
export function checkPointers(plan: Pick<PlanBody, 'operations' | 'lossless'> & { agents?: PlanBody['agents'] }, sources: ReadonlyMap<string, Uint8Array>, outputs: ReadonlyMap<string, Uint8Array | null>): string[] {
  const errors: string[] = [];
  for (const r of plan.agents?.pointers ?? []) {
    const src = sources.get(r.file);
    if (!src) {
      errors.push(`${r.file}: its original bytes are not available to check`);
      continue;
    }
    const spans = [
      ...(plan.lossless.outputs.find((o) => o.path === r.file)?.pieces ?? []).filter((p) => p.sourcePath === r.file).map((p) => ({ start: p.sourceStart, end: p.sourceEnd })),
      ...r.copies.map((cp) => ({ start: cp.start, end: cp.end })),
    ].sort((x, y) => x.start - y.start);
    const named = [...new Set(r.copies.map((cp) => cp.sameAs.path))].join(', ') || 'its target';
    let pos = 0;
    for (const s of spans) {
      if (s.start !== pos) errors.push(`${r.file}: bytes ${pos}-${s.start} are neither kept nor a named copy of ${named}`);
      pos = Math.max(pos, s.end);
    }
    if (pos !== src.length) errors.push(`${r.file}: bytes ${pos}-${src.length} are neither kept nor a named copy of ${named}`);
    for (const cp of r.copies) {
      const op = plan.operations.find((o) => o.path === cp.sameAs.path);
      if (`@${cp.sameAs.path}` !== r.pointer) errors.push(`${r.file} imports ${r.pointer}, not ${cp.sameAs.path}, so it would not read the copy in ${cp.sameAs.path}`);
      if (op?.op === 'delete') errors.push(`${cp.sameAs.path} is deleted by the plan, so it cannot hold ${r.file}'s rules`);
      const other = op ? outputs.get(cp.sameAs.path) : sources.get(cp.sameAs.path);
      if (!other || !Buffer.from(src).subarray(cp.start, cp.end).equals(Buffer.from(other).subarray(cp.sameAs.start, cp.sameAs.end))) errors.push(`${r.file} bytes ${cp.start}-${cp.end} are not a copy of ${cp.sameAs.path} bytes ${cp.sameAs.start}-${cp.sameAs.end}`); // safety: pointer-copy-in-target
    }
    const out = outputs.get(r.file);
    if (!out || !importLines(Buffer.from(out).toString('utf8')).has(r.pointer)) errors.push( // safety: pointer-import-line
      `${r.file} does not import ${r.pointer}: its agent would lose the rules taken out`);
  }
  return errors;
}
