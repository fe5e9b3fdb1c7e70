/**
 * Analysis + overrides -> Plan: where each section of `.github/copilot-instructions.md` goes,
 * the operations that get it there, and the proof that no byte is lost. buildPlan reads as its
 * steps: scopes (inference or override per section) -> destinations (one file per topic: the
 * sections with the same scope share it) -> outputs (bytes and operations) -> risk -> seal (hash).
 *
 * Deterministic by construction: no clock, no absolute path, no Map-order dependence; the
 * plan's identity is the SHA-256 of its canonical JSON (planHash).
 *
 * A large section whose subsections have different scopes is decided part by part
 * (subsections.ts); the output bytes and the lossless proof are built by plan-outputs.ts.
 */
import type { Analysis, ByteRange, ScopeResult, Section, Snapshot, SourceFile } from './types.js';
import type { ExcludeAgent, Override, Plan, PlanBody, PlanSection, Operation } from '../schemas/plan.js';
import { INSTRUCTIONS_DIR, INSTRUCTIONS_SUFFIX, REPO_WIDE_PATH, instructionPath, joinApplyTo, splitApplyTo } from './copilot-format.js';
import { canonicalJson, sha256Hex } from './canonical.js';
import { ErrorCode, OnboardingError } from './errors.js';
import { asBuffer, checkLossless } from './lossless.js';
import { type NormOverride, invalid, namedSections, resolveOverrides, storedOverrides } from './overrides.js';
import { FileIndex } from './file-index.js';
import { SCAN_CAP } from './keywords.js';
import { thousands } from './sanitize.js';
import { type Candidate, SectionText, inferScope, scopeCandidates, topicOf } from './scope.js';
import { fileSlug, slugAllocator } from './slug.js';
import { type ParentHeading, type Unit, cutForOverrides, partSections, splitSubsections } from './subsections.js';
import { buildOutputs } from './plan-outputs.js';
import { slicerOf, type Utf8Slicer } from './utf8.js';

export { verifyLossless } from './lossless.js';
export { dominantEol } from './plan-outputs.js';

export interface BuildPlanInput {
  snapshot: Snapshot;
  analysis: Analysis;
  overrides?: Override[];
  /** The tool's version, recorded in the plan (a plan is a function of the sources, the overrides and this). */
  toolVersion?: string;
}

/** Above this many files created the plan is flagged for a closer look. */
const MANY_FILES = 8;

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------- decisions

interface Decision {
  section: Section;
  /** Globs of this section (own or adopted from its destination group); null = repository-wide. */
  globs: string[] | null;
  slug: string | null;
  evidence: string[];
  decidedBy: 'inference' | 'override';
  /** The heading a part of a split section sits under. */
  parent: ParentHeading | null;
  /** Copilot agent the section's file excludes (override). */
  excludeAgent?: ExcludeAgent;
}

/** A heading that says its rules are for code review ("Code review instructions", "PR review guidelines", "Review checklist", "When reviewing code"). */
const REVIEW_ONLY_RE = /\b(?:(?:code|pr|pull[ -]request)[ -]reviews?|reviews? (?:instructions|guidelines|checklist|criteria|protocol|standards|rules)|when reviewing)\b/i;
/** A heading that says its rules are for the Copilot coding (cloud) agent only ("For the coding agent only"): not "AI coding agent instructions", a common title for every agent. */
const CODING_AGENT_ONLY_RE = /\b(?:(?:coding|cloud) agent only|only (?:for )?the (?:copilot )?(?:coding|cloud) agent)\b/i;

/**
 * excludeAgent from the text: a file all of whose sections are under headings saying their rules
 * are only for code review is skipped by the coding agent ("coding-agent"); only for the coding
 * agent, skipped by code review ("code-review"). Heading wording only (the section's or the
 * chapter's it was split from); a file that also holds other sections excludes nothing, so the
 * wording never makes a file of its own.
 */
function inferredExcludeAgent(members: readonly Decision[]): ExcludeAgent | undefined {
  const says = (re: RegExp): boolean => members.every((m) => m.decidedBy === 'inference' && (re.test(m.section.title) || (m.parent !== null && re.test(m.parent.title))));
  const review = says(REVIEW_ONLY_RE);
  const coding = says(CODING_AGENT_ONLY_RE);
  return review === coding ? undefined : review ? 'coding-agent' : 'code-review';
}

/** The sections sent to one path-specific file, the globs they share, and the agent it excludes. */
interface Group {
  members: Decision[];
  globs: string[];
  excludeAgent?: ExcludeAgent;
}

/** The text inferScope reads: scope.ts scans at most SCAN_CAP characters, i.e. at most 4 bytes each. */
function sectionText(src: Buffer, text: Utf8Slicer | null, ranges: readonly ByteRange[]): string {
  const budget = SCAN_CAP * 4;
  let out = '';
  let used = 0;
  for (const r of ranges) {
    if (used >= budget) break;
    const end = Math.min(r.end, r.start + (budget - used));
    out += text?.slice(r.start, end) ?? src.toString('utf8', r.start, end);
    used += end - r.start;
  }
  return out;
}

/** Lower-cased slugs of `.github/instructions/<slug>.instructions.md` that already exist (files, links, folders, FIFOs…). */
function existingSlugs(snapshot: Snapshot): Set<string> {
  const taken = new Set<string>();
  const prefix = `${INSTRUCTIONS_DIR}/`.toLowerCase();
  const suffix = INSTRUCTIONS_SUFFIX.toLowerCase();
  const consider = (p: string): void => {
    const l = p.toLowerCase();
    if (l.startsWith(prefix) && l.endsWith(suffix)) {
      const rest = l.slice(prefix.length, l.length - suffix.length);
      if (rest && !rest.includes('/')) taken.add(rest);
    }
  };
  for (const f of snapshot.files) consider(f);
  for (const t of snapshot.taken ?? []) consider(t);
  for (const s of snapshot.sources) consider(s.path);
  for (const r of snapshot.refused) consider(r.path);
  return taken;
}

function checkRanges(section: Section, size: number): void {
  for (const r of section.ranges) {
    if (!Number.isInteger(r.start) || !Number.isInteger(r.end) || r.start < 0 || r.end < r.start || r.end > size) {
      throw new OnboardingError(ErrorCode.INTERNAL, `Section ${section.id} has an invalid byte range [${r.start}, ${r.end}) for a ${size}-byte file.`, {
        next: 'This is a bug in the analysis; please report it with the instruction file.',
      });
    }
  }
}

// ---------------------------------------------------------------- the plan

export function buildPlan(input: BuildPlanInput): Plan {
  const { snapshot, analysis } = input;
  const repo: SourceFile | undefined =
    snapshot.sources.find((s) => s.kind === 'copilot-repo' && s.path === REPO_WIDE_PATH) ?? snapshot.sources.find((s) => s.kind === 'copilot-repo');
  const src = repo ? asBuffer(repo.bytes) : Buffer.alloc(0);
  const analysed = repo ? analysis.sections.filter((s) => s.sourcePath === repo.path) : [];
  for (const s of analysed) checkRanges(s, src.length);

  const index = new FileIndex(snapshot.files);
  // Each section's text is sliced from the file's text (decoded once, by analyze) and scanned once, whichever steps ask about it.
  const whole = repo ? slicerOf(repo.bytes) : null;
  const texts = new Map<Section, SectionText>();
  const textOf = (section: Section): SectionText => {
    let t = texts.get(section);
    if (!t) texts.set(section, (t = new SectionText(sectionText(src, whole, section.ranges))));
    return t;
  };
  // The file's first heading is its title: "Soundome — global instructions" names the project, not a part of it.
  const title = analysed.find((s) => s.kind === 'heading');
  // A title with headings under it is the file's title chapter: its text is the whole file's (inferScope).
  const titleChapter = title !== undefined && analysis.headings.some((h) => h.level > title.level && h.start > title.ranges[0]!.start && h.start < title.ranges[title.ranges.length - 1]!.end);
  const infer = (section: Section): ScopeResult => inferScope(section === title ? { ...section, opensFile: true, titleChapter } : section, textOf(section), index);
  // A part an override names is cut out of a section kept whole, so the person can decide it.
  const units = cutForOverrides(splitSubsections(analysed, src, analysis.headings, infer, index), analysis.headings, namedSections(input.overrides ?? []), infer);
  const resolved = resolveOverrides(input.overrides ?? [], units.map((u) => u.section));
  const decisions = decideScopes(units, resolved, infer);
  for (const d of decisions) {
    const agent = resolved.get(d.section.id)?.excludeAgent;
    if (agent) Object.assign(d, { excludeAgent: agent, evidence: [`override: excludeAgent ${JSON.stringify(agent)}`, ...d.evidence], decidedBy: 'override' });
  }
  const groups = assignDestinations(decisions, snapshot, index);
  const outputs = repo && groups.size > 0 ? buildOutputs(repo, src, decisions, groups, whole) : { operations: [], lossless: [], bytes: new Map<string, Uint8Array | null>() };

  const bodyWithoutProof: Omit<PlanBody, 'lossless' | 'risk' | 'riskReasons'> = {
    format: 'copilot-onboarding/plan@1',
    ...(input.toolVersion !== undefined ? { toolVersion: input.toolVersion } : {}),
    pattern: analysis.pattern,
    sources: planSources(snapshot),
    sections: decisions.map((d) => planSection(d, groups)),
    operations: outputs.operations,
    problems: analysis.problems.map((p) => ({ code: p.code, severity: p.severity, message: p.message, path: p.path, lines: [...p.lines] })),
    overrides: storedOverrides(resolved),
    ...(repo ? { leftover: leftoverOf(src, whole, decisions, outputs.bytes.get(repo.path), (s, part) => scopeCandidates(textOf(s), index, s.title, { part }), (s) => partSections(s, analysis.headings)) } : {}),
    ...(repo ? { alternatives: alternativesOf(src, whole, decisions, groups, index, (s) => scopeCandidates(textOf(s), index, s.title, { part: true, paths: false })) } : {}),
  };
  const lossless = {
    outputs: outputs.lossless,
    coveredSources: outputs.operations.length && repo ? [repo.path] : [],
    ok: true,
  };
  // The hashes were just computed from these very bytes; everything else is checked.
  const check = checkLossless({ ...bodyWithoutProof, risk: 'low', riskReasons: [], lossless }, repo ? new Map([[repo.path, src]]) : new Map(), outputs.bytes, false);
  lossless.ok = check.ok;

  const { risk, riskReasons } = assessRisk(snapshot, analysis, decisions, outputs.operations, check);
  const left = bodyWithoutProof.leftover;
  if (left?.suggestions.length) {
    // One short line: the approve form shows it to the person; the sections and their candidate
    // scopes are in `leftover`, which propose's text lists and the agent asks about.
    const n = left.suggestions.length;
    riskReasons.push(`${REPO_WIDE_PATH} keeps ${thousands(left.chars)} characters after the split, attached to every request; ${n === 1 ? '1 large section there has' : `${thousands(n)} large sections there have`} candidate scopes to ask about`);
  }
  return seal({ ...bodyWithoutProof, risk, riskReasons, lossless });
}

/** Sections kept repository-wide from this size on get candidate scopes in the plan. */
const SUGGEST_FROM_CHARS = 1000;

/** Characters (code points) of UTF-8 bytes, as `[...s].length` counts them: the bytes that start one. */
function codePoints(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let n = 0;
  for (let i = start; i < end; i++) if ((bytes[i]! & 0xc0) !== 0x80) n++;
  return n;
}

/** A section's characters (code points), from the slicer's table when there is one. */
function sectionChars(src: Buffer, slicer: Utf8Slicer | null, s: Section): number {
  return s.ranges.reduce((sum, r) => sum + (slicer ? slicer.codePoints(r.start, r.end) : codePoints(src, r.start, r.end)), 0);
}

/**
 * The repository-wide file's size after the split (`after`: its bytes then, null when deleted,
 * undefined when the plan leaves it as it is), and candidate scopes for its large sections.
 */
function leftoverOf(
  src: Buffer,
  slicer: Utf8Slicer | null,
  decisions: readonly Decision[],
  after: Uint8Array | null | undefined,
  candidatesOf: (s: Section, part: boolean) => Candidate[],
  partsOf: (s: Section) => Section[] | null,
): NonNullable<PlanBody['leftover']> {
  const size = after === null ? 0 : codePoints(after ?? src);
  const suggestions: NonNullable<PlanBody['leftover']>['suggestions'] = [];
  const chars = (s: Section): number => sectionChars(src, slicer, s);
  for (const d of decisions) {
    if (d.slug !== null || d.decidedBy === 'override' || d.section.kind !== 'heading') continue;
    if (chars(d.section) < SUGGEST_FROM_CHARS) continue;
    // A section kept whole is offered whole, then by its subsections (an override may name one:
    // cutForOverrides), so the person can move the TypeScript part of a project overview without the rest.
    const parts = d.parent === null ? partsOf(d.section) : null;
    for (const s of [d.section, ...(parts?.slice(1) ?? [])]) {
      const n = chars(s);
      if (n < SUGGEST_FROM_CHARS) continue;
      const candidates = candidatesOf(s, s !== d.section).map((c) => ({ applyTo: joinApplyTo(c.applyTo), evidence: c.evidence }));
      suggestions.push({ section: s.id, title: s.title, chars: n, candidates });
    }
  }
  suggestions.sort((a, b) => b.chars - a.chars || cmp(a.section, b.section));
  return { chars: size, suggestions };
}

/** A candidate scope is another scope than a section's file has when their files overlap by less than this (Jaccard over the tree). */
const OTHER_SCOPE_JACCARD = 0.5;

/**
 * Large sections inference writes to a path-specific file (SUGGEST_FROM_CHARS or more) whose text
 * supports other scopes: the candidates scopeCandidates gives from the section's heading alone and
 * from its language whose files overlap the file's by less than half, largest sections first (the
 * maintainer may want all Go files for a section written to `cmd/**`). Not the paths it names: a
 * written section names paths in passing, and on the real cases those matched a maintainer's file
 * one time in five (docs/evaluation.md, nineteenth session).
 */
function alternativesOf(
  src: Buffer,
  slicer: Utf8Slicer | null,
  decisions: readonly Decision[],
  groups: ReadonlyMap<string, Group>,
  index: FileIndex,
  candidatesOf: (s: Section) => Candidate[],
): NonNullable<PlanBody['alternatives']> {
  const out: NonNullable<PlanBody['alternatives']> = [];
  for (const d of decisions) {
    if (d.slug === null || d.decidedBy === 'override' || d.section.kind !== 'heading') continue;
    const chars = sectionChars(src, slicer, d.section);
    if (chars < SUGGEST_FROM_CHARS) continue;
    const globs = groups.get(d.slug)!.globs;
    const now = index.matchingAny(globs);
    const candidates = candidatesOf(d.section)
      .filter((c) => jaccard(index.matchingAny(c.applyTo), now) < OTHER_SCOPE_JACCARD)
      .map((c) => ({ applyTo: joinApplyTo(c.applyTo), evidence: c.evidence }));
    if (candidates.length) out.push({ section: d.section.id, title: d.section.title, chars, applyTo: joinApplyTo(globs), candidates });
  }
  return out.sort((a, b) => b.chars - a.chars || cmp(a.section, b.section));
}

/**
 * The plan's identity (its first 16 hex digits name it): the SHA-256 of the RFC 8785 canonical
 * JSON of its body with each operation's `content` left out. Each content is bound all the same,
 * by its operation's `sha256` of its UTF-8 bytes, which is hashed, and which whoever loads a plan
 * checks (contentMatches); hashing the text a second time cost more than the rest of the plan.
 */
export function planHash(body: PlanBody): string {
  return sha256Hex(canonicalJson({ ...body, operations: body.operations.map(({ content: _content, ...op }) => op) }));
}

/** Whether an operation carries exactly the bytes its size and sha256 record (a delete carries none). */
export function contentMatches(op: Operation): boolean {
  if (op.op === 'delete') return op.content === null && op.sha256 === null;
  if (op.content === null || op.sha256 === null) return false;
  const bytes = Buffer.from(op.content, 'utf8');
  return bytes.length === op.size && sha256Hex(bytes) === op.sha256;
}

function seal(body: PlanBody): Plan {
  const sha256 = planHash(body);
  return { ...body, planId: sha256.slice(0, 16), sha256 };
}

/** Every source the plan reads (other agents' files are only reported by the analysis). */
function planSources(snapshot: Snapshot): PlanBody['sources'] {
  return snapshot.sources
    .filter((s) => s.kind !== 'other-agent')
    .map((s) => ({ path: s.path, kind: s.kind, size: s.size, sha256: s.sha256 }))
    .sort((a, b) => cmp(a.path, b.path));
}

/** Step 1, scopes: an override decides a section, else inference from its text and the workspace files. */
function decideScopes(units: readonly Unit[], resolved: ReadonlyMap<string, NormOverride>, inferScopeOf: (s: Section) => ScopeResult): Decision[] {
  return units.map(({ section, parent, scope }): Decision => {
    const infer = (): ScopeResult => scope ?? inferScopeOf(section);
    const o = resolved.get(section.id);
    if (section.kind === 'frontmatter') {
      return { section, globs: null, slug: null, evidence: [`front matter of ${section.sourcePath}: stays in that file`], decidedBy: o ? 'override' : 'inference', parent };
    }
    if (o?.keepRepoWide) return { section, globs: null, slug: null, evidence: ['override: keep repository-wide'], decidedBy: 'override', parent };
    if (o && (o.applyTo !== undefined || o.slug !== undefined)) {
      const evidence: string[] = [];
      let globs: string[] | null = null;
      if (o.applyTo !== undefined) {
        globs = splitApplyTo(o.applyTo);
        evidence.push(`override: applyTo ${JSON.stringify(o.applyTo)}`);
      } else {
        const inferred = infer();
        globs = inferred.applyTo;
        evidence.push(...inferred.evidence);
      }
      if (o.slug !== undefined) evidence.push(`override: destination ${instructionPath(o.slug)}`);
      return { section, globs, slug: o.slug ?? null, evidence, decidedBy: 'override', parent };
    }
    const inferred = infer();
    return { section, globs: inferred.applyTo, slug: null, evidence: inferred.evidence, decidedBy: 'inference', parent };
  });
}

/** The Jaccard index of two sets of the tree's files (0 when both are empty). */
function jaccard(a: ReadonlySet<number>, b: ReadonlySet<number>): number {
  let both = 0;
  for (const f of a) if (b.has(f)) both++;
  const union = a.size + b.size - both;
  return union === 0 ? 0 : both / union;
}

/** Two inferred scopes whose file sets over the tree have at least this Jaccard are one topic. */
export const SAME_FILES_JACCARD = 0.8;

/**
 * Scopes that load on nearly the same files are one topic (all Python files, and the `backend`
 * folder where the backend is the Python): for each scope, the index of the scope it joins (itself when none),
 * earlier scopes first. Only scopes inference gave join (an override's applyTo is the person's
 * choice), and only with the same excludeAgent; Jaccard over the tree's files.
 */
function joinNearScopes(scopes: ReadonlyArray<{ globs: readonly string[]; agent: string; inferred: boolean }>, index: FileIndex): number[] {
  const root = scopes.map((_, i) => i);
  if (scopes.length < 2) return root;
  const sets = scopes.map((s) => index.matchingAny(s.globs));
  const find = (i: number): number => (root[i] === i ? i : (root[i] = find(root[i]!)));
  for (let i = 0; i < scopes.length; i++) {
    for (let j = i + 1; j < scopes.length; j++) {
      if (!scopes[i]!.inferred || !scopes[j]!.inferred || scopes[i]!.agent !== scopes[j]!.agent || find(i) === find(j)) continue;
      if (jaccard(sets[i]!, sets[j]!) >= SAME_FILES_JACCARD) root[Math.max(find(i), find(j))] = Math.min(find(i), find(j));
    }
  }
  return root.map((_, i) => find(i));
}

/**
 * Step 2, destinations: one file per topic. Explicit destinations first; then the sections
 * inference scopes, grouped by scope: every section with the same globs, or with globs of one
 * taxonomy topic (Python files, test files), and the same excludeAgent goes to one file, whose
 * applyTo joins its sections' globs, named after what those globs are (topicOf), else after the
 * first of its sections. A topic name
 * equal to an explicit destination merges into it (the agent saw that slug in the previous plan
 * and asked to put another section there); other names avoid existing files. Sections with a
 * destination but no globs of their own take the group's. Returns slug -> group, in the order
 * the groups were first named.
 */
function assignDestinations(decisions: Decision[], snapshot: Snapshot, index: FileIndex): Map<string, Group> {
  const existing = existingSlugs(snapshot);
  const explicit = new Set<string>();
  for (const d of decisions) {
    if (d.slug === null) continue;
    if (existing.has(d.slug)) {
      throw invalid(
        `The destination ${instructionPath(d.slug)} for ${d.section.id} already exists; this tool never overwrites an instruction file.`,
        'Choose another destination slug, or move the section into that file by hand.',
      );
    }
    explicit.add(d.slug);
  }
  const allocate = slugAllocator(new Set([...existing, ...explicit]));
  // One file per topic: the same scope, or scopes of one taxonomy topic (Python files, tests)...
  const keyOf = new Map<Decision, string>();
  const scopes = new Map<string, { at: number; globs: string[]; agent: string; inferred: boolean }>();
  for (const d of decisions) {
    if (d.slug !== null || d.globs === null) continue;
    const topic = topicOf(d.globs);
    const key = `${topic?.kind === 'topic' ? `topic:${topic.name}` : [...new Set(d.globs)].sort().join('\n')}\0${d.excludeAgent ?? ''}`;
    keyOf.set(d, key);
    const scope = scopes.get(key);
    const inferred = d.decidedBy === 'inference';
    if (scope) (scope.globs.push(...d.globs), (scope.inferred &&= inferred));
    else scopes.set(key, { at: scopes.size, globs: [...d.globs], agent: d.excludeAgent ?? '', inferred });
  }
  // ...or inferred scopes that load on nearly the same files of the tree (a person's applyTo stays as given).
  const joined = joinNearScopes([...scopes.values()], index);
  const keys = [...scopes.keys()];
  const byScope = new Map<string, string>();
  const names = new Set<string>();
  for (const d of decisions) {
    const own = keyOf.get(d);
    if (own === undefined) continue;
    const key = keys[joined[scopes.get(own)!.at]!]!;
    let slug = byScope.get(key);
    if (slug === undefined) {
      const topic = topicOf(d.globs!);
      const named = fileSlug(topic?.name ?? d.section.title);
      // A second topic of one name (`Backend/**`, then `Backend/**,Test/Backend/**`) is named after
      // its first heading ("z21-backend-best-practices"), not "backend-2".
      const base = topic && !explicit.has(named) && names.has(named) ? fileSlug(d.section.title) : named;
      names.add(named);
      slug = explicit.has(base) ? base : allocate(base);
      byScope.set(key, slug);
    }
    d.slug = slug;
  }
  const groups = new Map<string, Group>();
  for (const d of decisions) {
    if (d.slug === null) continue;
    const g = groups.get(d.slug);
    if (g) g.members.push(d);
    else groups.set(d.slug, { members: [d], globs: [] });
  }
  for (const d of decisions) {
    if (!d.excludeAgent) continue;
    const g = d.slug === null ? undefined : groups.get(d.slug);
    if (!g) throw invalid(`${d.section.id} stays repository-wide, so it cannot exclude ${d.excludeAgent}: only a path-specific file carries excludeAgent.`, `Give the override an applyTo or a destination too.`);
    if (g.excludeAgent && g.excludeAgent !== d.excludeAgent) {
      throw invalid(`${instructionPath(d.slug!)} would exclude both ${g.excludeAgent} and ${d.excludeAgent}.`, 'Give the sections of one file the same excludeAgent, or send them to different destinations.');
    }
    g.excludeAgent = d.excludeAgent;
  }
  for (const [slug, group] of groups) {
    const { members } = group;
    const agent = group.excludeAgent ? undefined : inferredExcludeAgent(members);
    if (agent) {
      group.excludeAgent = agent;
      for (const m of members) m.evidence.push(`its heading says its rules are for ${agent === 'coding-agent' ? 'code review' : 'the coding agent'} only: excludeAgent ${JSON.stringify(agent)}`);
    }
    const seen = new Set<string>();
    for (const m of members) for (const g of m.globs ?? []) if (!seen.has(g)) (seen.add(g), group.globs.push(g));
    // Joined inferred scopes drop a glob another of them covers (a person's applyTo stays as given).
    if (members.every((m) => m.decidedBy === 'inference')) group.globs = index.withoutCovered(group.globs);
    if (!group.globs.length) {
      throw invalid(
        `No applyTo for ${instructionPath(slug)}: no glob was inferred for ${members.map((m) => m.section.id).join(', ')}.`,
        `Give "applyTo" in the override (e.g. { "section": "${members[0]!.section.id}", "applyTo": "src/**" }), or keep the section repository-wide.`,
      );
    }
    if (members.length > 1) {
      // Named up to three: a topic of hundreds of sections must not cost a quadratic evidence list.
      const head = members.slice(0, 4);
      const others = (m: Decision): string => {
        const shown = head.filter((x) => x !== m).slice(0, 3).map((x) => x.section.id);
        const more = members.length - 1 - shown.length;
        return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
      };
      for (const m of members) m.evidence.push(`merged into ${instructionPath(slug)} with ${others(m)}`);
    }
  }
  return groups;
}

function planSection(d: Decision, groups: ReadonlyMap<string, Group>): PlanSection {
  return {
    id: d.section.id,
    sourcePath: d.section.sourcePath,
    title: d.section.title,
    kind: d.section.kind,
    proposed: d.section.proposed,
    startLine: d.section.startLine,
    endLine: d.section.endLine,
    ranges: d.section.ranges.map((r) => ({ start: r.start, end: r.end })),
    destination: d.slug === null ? REPO_WIDE_PATH : instructionPath(d.slug),
    applyTo: d.slug === null ? null : joinApplyTo(groups.get(d.slug)!.globs),
    evidence: d.evidence,
    decidedBy: d.decidedBy,
  };
}

/** Step 4, risk: high for a failed proof or an error, medium for what deserves a closer look. */
function assessRisk(
  snapshot: Snapshot,
  analysis: Analysis,
  decisions: readonly Decision[],
  operations: readonly Operation[],
  check: { ok: boolean; errors: string[] },
): { risk: PlanBody['risk']; riskReasons: string[] } {
  const high: string[] = [];
  const medium: string[] = [];
  const info: string[] = [];
  const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
  if (!check.ok) high.push(`the lossless check failed: ${check.errors.slice(0, 3).join('; ')}`);
  const errors = analysis.problems.filter((p) => p.severity === 'error');
  if (errors.length) high.push(`${plural(errors.length, 'problem')} of severity error (${[...new Set(errors.map((p) => p.code))].join(', ')})`);
  if (operations.length === 0) {
    info.push('nothing to migrate: no section has a confident path-specific scope');
  } else {
    const proposed = decisions.filter((d) => d.slug !== null && d.section.proposed);
    if (proposed.length) medium.push(`${plural(proposed.length, 'proposed topic section')} (grouped from text without headings) would move: check the grouping`);
    const creates = operations.filter((o) => o.op === 'create').length;
    if (creates > MANY_FILES) medium.push(`creates ${creates} files`);
    if (operations.some((o) => o.op === 'delete')) medium.push(`${REPO_WIDE_PATH} would be removed (every section moves out of it)`);
    const existing = analysis.existingInstructions.length;
    if (existing) medium.push(`${plural(existing, 'existing path-specific instruction file')} stay as they are next to the new ones`);
    if (snapshot.filesTruncated) medium.push('the workspace file list was truncated, so globs were checked against part of the repository');
    const overridden = decisions.filter((d) => d.decidedBy === 'override').length;
    if (overridden) info.push(`${plural(overridden, 'section')} decided by override`);
  }
  const warnings = analysis.problems.filter((p) => p.severity === 'warning');
  if (warnings.length) medium.push(`${plural(warnings.length, 'warning')} (${[...new Set(warnings.map((p) => p.code))].join(', ')})`);
  const risk = high.length ? 'high' : medium.length ? 'medium' : 'low';
  const reasons = [...high, ...medium, ...info];
  if (!reasons.length) reasons.push('no problems found; every byte of the original is kept');
  return { risk, riskReasons: reasons };
}

/** The stored bytes of a plan. */
export function serializePlan(plan: Plan): string {
  return canonicalJson(plan);
}
