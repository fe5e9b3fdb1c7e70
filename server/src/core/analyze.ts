/**
 * Snapshot -> Analysis: sections of the repository-wide file, the pattern of the workspace,
 * problems with line numbers, existing path-specific files. Pure.
 *
 * Pattern, first rule that applies wins (kept conservative on purpose: the pattern only
 * steers the narration and the defaults; every fact is also in `problems`):
 * 1. `migrated`     at least one `.github/instructions/**\/*.instructions.md` exists (read
 *                   or refused), with or without a repository-wide file.
 * 2. `messy`        the repository-wide file was refused.
 * 3. `clean`        there is no repository-wide file (nothing to split), or it holds only
 *                   white space (front matter and BOM aside).
 * 4. `messy`        the file has a DUPLICATE_HEADING at the split level (two sections of the
 *                   same name), a POSSIBLE_CONTRADICTION, or an outline that skips levels
 *                   badly (a jump of 3+ levels, e.g. H1 -> H4, or 3+ jumps of 2 levels).
 * 5. `unstructured` it has no heading (outside its front matter).
 * 6. `clean`        it has no warning or error and at most two sections at the split
 *                   level: there is little to split. (Its size is no rule: there is no
 *                   fixed limit; what it costs per file is core/loads.ts's figure.)
 * 7. `structured`   otherwise: headings give several sections to place.
 *
 * Characters are Unicode code points of the decoded text (a BOM is not counted).
 */
import type { Analysis, ExistingInstruction, Heading, ParsedMarkdown, Pattern, Problem, Section, Snapshot, SourceFile } from './types.js';
import { readFrontMatter } from './copilot-format.js';
import { lineOfOffset, parseMarkdown, splitLevel, splitSections } from './markdown.js';
import { findContradictions } from './contradictions.js';
import { proposeTopicSections } from './topics.js';
import { agentInventory } from './agents/inventory.js';

const utf8 = new TextDecoder('utf-8');

/** Number of Unicode code points (surrogate pairs count once). */
export function countChars(text: string): number {
  let pairs = 0;
  const re = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;
  while (re.exec(text)) pairs++;
  return text.length - pairs;
}

/** Lines as parseMarkdown counts them: a final line break does not open a new line. */
function countLines(bytes: Uint8Array): number {
  let n = 0;
  const size = bytes.length;
  for (let i = 0; i < size; i++) {
    const c = bytes[i];
    if (c === 0x0a) n++;
    else if (c === 0x0d) {
      n++;
      if (bytes[i + 1] === 0x0a) i++;
    }
  }
  const last = bytes[size - 1];
  return size > 0 && last !== 0x0a && last !== 0x0d ? n + 1 : n;
}

// ---------------------------------------------------------------------------------------
// Headings

/** Title as compared for duplicates: case, emphasis, code marks, spacing and a final colon do not matter. */
export function normalizeTitle(text: string): string {
  return text
    .toLowerCase()
    .replace(/[*_`~]/g, '')
    .replace(/\s+/g, ' ')
    .replace(/[\s:：]+$/u, '')
    .trim();
}

/**
 * Sibling headings with the same normalised title (same level, same parent heading). At the
 * split level they become two sections of the same name: a warning. Deeper (`### Examples`
 * twice under one parent) it is only a style point: info.
 */
function duplicateHeadings(path: string, headings: readonly Heading[], splitAt: number): Problem[] {
  // parent = index of the nearest earlier heading of a lower level (-1: the document)
  const stack: number[] = [];
  const groups = new Map<string, Heading[]>();
  headings.forEach((h, i) => {
    while (stack.length && headings[stack[stack.length - 1]!]!.level >= h.level) stack.pop();
    const parent = stack.length ? stack[stack.length - 1]! : -1;
    stack.push(i);
    const title = normalizeTitle(h.text);
    if (!title) return;
    const key = `${parent}\u0000${h.level}\u0000${title}`;
    const g = groups.get(key);
    if (g) g.push(h);
    else groups.set(key, [h]);
  });
  const out: Problem[] = [];
  for (const g of groups.values()) {
    if (g.length < 2) continue;
    const atSplit = g[0]!.level <= splitAt;
    out.push({
      code: 'DUPLICATE_HEADING',
      severity: atSplit ? 'warning' : 'info',
      message: atSplit
        ? `The heading "${g[0]!.text}" (level ${g[0]!.level}) appears ${g.length} times: these sections are hard to tell apart and may disagree; consider merging them.`
        : `The heading "${g[0]!.text}" (level ${g[0]!.level}) appears ${g.length} times under the same parent heading.`,
      path,
      lines: g.map((h) => h.line),
    });
  }
  return out;
}

function isBlank(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = bytes[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return true;
}

function emptySections(path: string, bytes: Uint8Array, headings: readonly Heading[]): Problem[] {
  const out: Problem[] = [];
  headings.forEach((h, i) => {
    const next = headings[i + 1];
    if (next && next.level > h.level) return; // it has subsections
    if (!isBlank(bytes, h.end, next ? next.start : bytes.length)) return;
    out.push({ code: 'EMPTY_SECTION', severity: 'info', message: `The section "${h.text || '(empty heading)'}" has a heading and nothing under it.`, path, lines: [h.line] });
  });
  return out;
}

/** A jump deeper by 3+ levels between consecutive headings, or 3+ jumps of 2 levels. */
function skipsBadly(headings: readonly Heading[]): boolean {
  const skips = headings.slice(1).map((b, i) => b.level - headings[i]!.level).filter((d) => d >= 2);
  return skips.some((d) => d >= 3) || skips.length >= 3;
}

// ---------------------------------------------------------------------------------------

function frontMatterLine(text: string, key: RegExp): number {
  const m = key.exec(text);
  if (!m) return 1;
  let line = 1;
  for (let i = 0; i < m.index; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) line++;
    else if (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a) line++;
  }
  return line;
}

function frontMatterProblems(path: string, fm: ReturnType<typeof readFrontMatter>): Problem[] {
  if (!fm.present || !fm.errors.length) return [];
  return [{ code: 'INVALID_FRONT_MATTER', severity: 'warning', message: `The YAML front matter of ${path} does not parse: ${fm.errors[0]!.split('\n')[0]}.`, path, lines: [1] }];
}

function pathFileProblems(src: SourceFile, text: string): { problems: Problem[]; existing: ExistingInstruction } {
  const fm = readFrontMatter(text);
  const problems = frontMatterProblems(src.path, fm);
  const applyLine = frontMatterLine(text, /^applyTo[ \t]*:/m);
  if (fm.applyToShape === 'missing') {
    const message = `${src.path} has no applyTo in its front matter, so Copilot never applies it to a file automatically.`;
    problems.push({ code: 'MISSING_APPLY_TO', severity: 'warning', message, path: src.path, lines: [1] });
  } else if (fm.applyToShape !== 'quoted-string') {
    const why: Record<string, string> = {
      'alias-like': 'an unquoted value starting with `*` is a YAML alias, so strict YAML parsers reject or misread it',
      'yaml-list': 'a YAML list is not the documented shape (one string of comma-separated globs)',
      'quoted-strings': 'several quoted strings are not one YAML value, so strict YAML parsers reject the whole front matter (read here as all the globs they name)',
      'unquoted-string': 'it works, but the documented shape is a quoted string',
      other: 'the value is not a string',
    };
    problems.push({
      code: 'MALFORMED_APPLY_TO',
      severity: fm.applyToShape === 'unquoted-string' ? 'info' : 'warning',
      message: `applyTo in ${src.path} is ${fm.applyToShape}: ${why[fm.applyToShape] ?? 'not the documented shape'}; write applyTo: "glob,glob".`,
      path: src.path,
      lines: [applyLine],
    });
  }
  return { problems, existing: { path: src.path, applyTo: fm.applyTo, applyToShape: fm.applyToShape, description: fm.description } };
}

interface RepoAnalysis {
  parsed: ParsedMarkdown;
  sections: Section[];
  problems: Problem[];
  hasHeadings: boolean;
  blank: boolean;
  chars: number;
  seriousProblems: boolean;
  splitSectionCount: number;
}

function analyzeRepo(src: SourceFile): RepoAnalysis {
  const bytes = src.bytes;
  const parsed = parseMarkdown(bytes);
  const text = parsed.text;
  const chars = countChars(text);
  const hasHeadings = parsed.headings.length > 0;
  const bodyStart = parsed.frontMatter ? parsed.frontMatter.end : parsed.bom ? 3 : 0;
  const blank = isBlank(bytes, bodyStart, bytes.length);
  let sections: Section[] = [];
  if (bytes.length > 0) sections = hasHeadings ? splitSections(src.path, bytes, parsed, 1) : proposeTopicSections(src.path, bytes, parsed, 1);

  const problems: Problem[] = [];
  if (parsed.frontMatter) problems.push(...frontMatterProblems(src.path, readFrontMatter(text)));
  const level = splitLevel(parsed.headings, bytes);
  const duplicates = duplicateHeadings(src.path, parsed.headings, level);
  problems.push(...duplicates);
  problems.push(...emptySections(src.path, bytes, parsed.headings));

  // Section title in force at each line, to scope contradiction checks.
  const cuts = parsed.headings.filter((h) => h.level === level);
  const titleAt = (line: number): string => {
    // the last cut at or before `line` (binary search: this runs for many lines)
    let lo = 0;
    let hi = cuts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (cuts[mid]!.line <= line) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found < 0 ? '' : cuts[found]!.text;
  };
  const firstLine = parsed.frontMatter ? lineOfOffset(parsed.lineStarts, parsed.frontMatter.end) + (parsed.frontMatter.end >= bytes.length ? 1 : 0) : 1;
  const contradictions = findContradictions(src.path, text, titleAt, firstLine);
  problems.push(...contradictions);

  return {
    parsed,
    sections,
    problems,
    hasHeadings,
    blank,
    chars,
    seriousProblems: duplicates.some((p) => p.severity === 'warning') || contradictions.length > 0 || skipsBadly(parsed.headings),
    splitSectionCount: cuts.length,
  };
}

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

export function analyze(snapshot: Snapshot): Analysis {
  const repo = snapshot.sources.find((s) => s.kind === 'copilot-repo');
  const pathSources = snapshot.sources.filter((s) => s.kind === 'copilot-path');
  const otherSources = snapshot.sources.filter((s) => s.kind === 'other-agent');

  const problems: Problem[] = [];
  for (const r of snapshot.refused) {
    problems.push({ code: 'SOURCE_REFUSED', severity: 'error', message: `${r.path} was not read: ${r.reason}.`, path: r.path, lines: [] });
  }

  const repoAnalysis = repo ? analyzeRepo(repo) : null;
  if (repoAnalysis) problems.push(...repoAnalysis.problems);

  const existingInstructions: ExistingInstruction[] = [];
  for (const src of pathSources) {
    const r = pathFileProblems(src, utf8.decode(src.bytes));
    problems.push(...r.problems);
    existingInstructions.push(r.existing);
  }

  const otherAgentFiles = [...otherSources.map((s) => s.path), ...snapshot.refused.filter((r) => r.kind === 'other-agent').map((r) => r.path)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (otherAgentFiles.length) {
    const message = `Other agents' instruction files found: ${otherAgentFiles.join(', ')} (the inventory says who reads each; propose copies what maps exactly into Copilot files, and moves path-specific parts of an always-on CLAUDE.md or GEMINI.md only with an import back, so no agent loses a rule).`;
    problems.push({ code: 'OTHER_AGENT_FILES', severity: 'info', message, path: otherAgentFiles[0]!, lines: [] });
  }

  const sources = snapshot.sources.map((s) => {
    const lines = repoAnalysis && s === repo ? repoAnalysis.parsed.lineStarts.length : countLines(s.bytes);
    const chars = repoAnalysis && s === repo ? repoAnalysis.chars : countChars(utf8.decode(s.bytes));
    return { path: s.path, kind: s.kind, size: s.size, sha256: s.sha256, lines, chars };
  });

  const repoRefused = snapshot.refused.some((r) => r.kind === 'copilot-repo');
  const migrated = pathSources.length > 0 || snapshot.refused.some((r) => r.kind === 'copilot-path');
  let pattern: Pattern;
  if (migrated) pattern = 'migrated';
  else if (repoRefused) pattern = 'messy';
  else if (!repoAnalysis || repoAnalysis.blank) pattern = 'clean';
  else if (repoAnalysis.seriousProblems) pattern = 'messy';
  else if (!repoAnalysis.hasHeadings) pattern = 'unstructured';
  else if (
    repoAnalysis.splitSectionCount <= 2 &&
    !problems.some((p) => p.severity !== 'info' && p.path === repo!.path)
  )
    pattern = 'clean';
  else pattern = 'structured';

  // Severity, then path, then first line (Array.prototype.sort is stable: ties keep their order).
  const ordered = problems.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || (a.lines[0] ?? 0) - (b.lines[0] ?? 0));

  return { pattern, sources, sections: repoAnalysis?.sections ?? [], headings: repoAnalysis?.parsed.headings ?? [], problems: ordered, existingInstructions, otherAgentFiles, agents: agentInventory(snapshot) };
}
