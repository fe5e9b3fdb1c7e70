/**
 * What loads where: for every file of the repository tree, the instruction characters Copilot
 * attaches when that file is in play, on each Copilot surface, before and after a plan. Pure.
 *
 * The rules per surface (sources in docs/loads.md):
 * - `.github/copilot-instructions.md` is always on, on every surface.
 * - `.github/instructions/**\/*.instructions.md` loads when one of its `applyTo` globs matches
 *   the file. github.com (code review, cloud agent) anchors a glob at the repository root
 *   (`*.py` is the root's Python files only) and honours `excludeAgent`; VS Code chat prefixes a
 *   glob that does not start with `/` or `**\/` with `**\/` (so `src/**` also matches
 *   `pkg/src/a.ts`), treats `*`, `**` and `**\/*` as every file, matches case-insensitively, and
 *   never matches a glob starting with `/` (it matches against the absolute path).
 * - `AGENTS.md`: the nearest one up the folder chain (code review, cloud agent); VS Code chat
 *   reads the root one only (nested ones are behind an experimental setting, off by default).
 * - `CLAUDE.md`, then `GEMINI.md`, at the root: github.com (code review, cloud agent) reads one
 *   of them when no `AGENTS.md` applies (github/docs custom-instructions-support lists agent
 *   instructions for both). VS Code (behind a setting) does not count it.
 *
 * Each glob is compiled once per matching style and tested once against each tree file, so the
 * figure costs at most 2 × (distinct globs × files) regular-expression tests and a pass per
 * surface to add them up.
 * Characters are Unicode code points of the whole file (front matter included).
 */
import picomatch from 'picomatch';
import { countChars } from './analyze.js';
import { INSTRUCTIONS_DIR, INSTRUCTIONS_SUFFIX, readFrontMatter, REPO_WIDE_PATH, splitApplyTo } from './copilot-format.js';
import { thousands } from './sanitize.js';

export const SURFACES = ['code-review', 'cloud-agent', 'vscode-chat'] as const;
export type Surface = (typeof SURFACES)[number];
/** The surface of the one-line figure (the others are in the full result and in `explain`). */
const HEADLINE_SURFACE: Surface = 'code-review';

export const SURFACE_NAMES: Record<Surface, string> = {
  'code-review': 'Copilot code review (github.com)',
  'cloud-agent': 'Copilot cloud agent (github.com)',
  'vscode-chat': 'Copilot Chat in VS Code',
};

/** Folders of vendored or generated code that a tree's figure leaves out, wherever they sit. */
const VENDORED_DIRS: ReadonlySet<string> = new Set([
  '.git', 'node_modules', 'bower_components', 'jspm_packages', 'vendor', 'third_party', 'third-party',
  '.venv', 'venv', '__pycache__', '.tox', '.mypy_cache', '.pytest_cache', '.gradle', '.next', '.nuxt', '.copilot-state',
]);

/** An instruction file as it is (before) or would be (after the plan). */
export interface InstructionText {
  path: string;
  text: string;
}

type Kind = 'repo-wide' | 'scoped' | 'agents' | 'claude' | 'gemini';

/** An instruction file, read for loading. */
export interface LoadRule {
  path: string;
  kind: Kind;
  chars: number;
  /** The applyTo globs (scoped files; empty when the file has none: it never loads by path). */
  globs: string[];
  /** Surfaces that skip the file by its `excludeAgent`. */
  excludedOn: Surface[];
  /** For AGENTS.md: the folder it governs ('' at the root). */
  dir: string;
}

const EXCLUDE: Record<string, Surface> = { 'code-review': 'code-review', 'coding-agent': 'cloud-agent', 'cloud-agent': 'cloud-agent' };

function kindOf(path: string): Kind | null {
  if (path === REPO_WIDE_PATH) return 'repo-wide';
  if (path.startsWith(`${INSTRUCTIONS_DIR}/`) && path.endsWith(INSTRUCTIONS_SUFFIX)) return 'scoped';
  if (path === 'AGENTS.md' || path.endsWith('/AGENTS.md')) return 'agents';
  if (path === 'CLAUDE.md') return 'claude';
  if (path === 'GEMINI.md') return 'gemini';
  return null;
}

/** The instruction files among `files` that Copilot reads, each with its size, globs and exclusions. */
export function loadRules(files: readonly InstructionText[]): LoadRule[] {
  const rules: LoadRule[] = [];
  for (const f of files) {
    const kind = kindOf(f.path);
    if (!kind) continue;
    const rule: LoadRule = { path: f.path, kind, chars: countChars(f.text.replace(/^\uFEFF/, '')), globs: [], excludedOn: [], dir: '' };
    if (kind === 'scoped') {
      const fm = readFrontMatter(f.text);
      rule.globs = fm.applyTo ? splitApplyTo(fm.applyTo) : [];
      for (const a of fm.excludeAgent ? splitApplyTo(fm.excludeAgent) : []) {
        const s = EXCLUDE[a.trim()];
        if (s && !rule.excludedOn.includes(s)) rule.excludedOn.push(s);
      }
    }
    if (kind === 'agents') rule.dir = f.path === 'AGENTS.md' ? '' : f.path.slice(0, -'/AGENTS.md'.length);
    rules.push(rule);
  }
  return rules.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The instruction files after `operations` (create and modify give the new text; delete removes). */
export function applyOperations(before: readonly InstructionText[], operations: readonly { op: string; path: string; content: string | null }[]): InstructionText[] {
  const out = new Map(before.map((f) => [f.path, f.text]));
  for (const o of operations) {
    if (o.op === 'delete' || o.content === null) out.delete(o.path);
    else out.set(o.path, o.content);
  }
  return [...out].map(([path, text]) => ({ path, text }));
}

const VENDORED_RE = new RegExp(`(?:^|/)(?:${[...VENDORED_DIRS].map((d) => d.replace(/[.]/g, '\\.')).join('|')})/`);

/** The files whose figure counts: none under a vendored or generated folder. */
export function treeFiles(files: readonly string[]): string[] {
  return files.filter((f) => !VENDORED_RE.test(f));
}

type Matcher = (path: string) => boolean;
const NEVER: Matcher = () => false;
const ALWAYS: Matcher = () => true;
const PM = { dot: true, noextglob: true, nonegate: true } as const;

/** One regular expression per glob (picomatch's own, tested directly: its matcher wrapper costs more than the test). */
function compile(glob: string, opts: picomatch.PicomatchOptions): Matcher {
  try {
    const re = picomatch.makeRe(glob, opts);
    return (p) => re.test(p);
  } catch {
    return NEVER;
  }
}

/** How a surface matches one applyTo glob: the predicate and the glob as that surface reads it. */
export function surfaceGlob(glob: string, surface: Surface): { test: Matcher; as: string } {
  const g = glob.trim();
  if (!g) return { test: NEVER, as: g };
  if (surface !== 'vscode-chat') {
    const anchored = g.replace(/^\.?\/+/, '');
    return { test: compile(anchored, PM), as: anchored };
  }
  if (g === '**' || g === '**/*' || g === '*') return { test: ALWAYS, as: g };
  if (g.startsWith('/')) return { test: NEVER, as: g };
  const as = g.startsWith('**/') ? g : `**/${g}`;
  return { test: compile(as, { ...PM, nocase: true }), as };
}

/** Which rules load for a path on a surface, and why. Rules are those of one state (before or after). */
export interface Attached {
  path: string;
  chars: number;
  why: string;
}

function nearestAgents(rules: readonly LoadRule[], file: string): LoadRule | null {
  let best: LoadRule | null = null;
  for (const r of rules) {
    if (r.kind !== 'agents') continue;
    if (r.dir !== '' && !file.startsWith(`${r.dir}/`)) continue;
    if (!best || r.dir.length > best.dir.length) best = r;
  }
  return best;
}

/** The instruction files a surface attaches when `file` is in play, with the reason for each. */
export function attachedTo(rules: readonly LoadRule[], file: string, surface: Surface): { attached: Attached[]; skipped: Attached[] } {
  const attached: Attached[] = [];
  const skipped: Attached[] = [];
  for (const r of rules) {
    if (r.kind === 'repo-wide') attached.push({ path: r.path, chars: r.chars, why: 'always on (repository-wide)' });
    if (r.kind !== 'scoped') continue;
    const hit = r.globs.map((g) => ({ g, m: surfaceGlob(g, surface) })).find((x) => x.m.test(file));
    if (!hit) continue;
    const why = `applyTo glob ${hit.g}${hit.m.as !== hit.g ? ` (read as ${hit.m.as})` : ''} matches`;
    if (r.excludedOn.includes(surface)) skipped.push({ path: r.path, chars: r.chars, why: `${why}, but excludeAgent skips it on this surface` });
    else attached.push({ path: r.path, chars: r.chars, why });
  }
  const agents = surface === 'vscode-chat' ? rules.find((r) => r.kind === 'agents' && r.dir === '') ?? null : nearestAgents(rules, file);
  if (agents) attached.push({ path: agents.path, chars: agents.chars, why: surface === 'vscode-chat' ? 'root AGENTS.md, always on (chat.useAgentsMdFile)' : agents.dir ? `nearest AGENTS.md (folder ${agents.dir})` : 'nearest AGENTS.md (the root one)' });
  else if (surface !== 'vscode-chat') {
    const alt = rules.find((r) => r.kind === 'claude') ?? rules.find((r) => r.kind === 'gemini');
    if (alt) attached.push({ path: alt.path, chars: alt.chars, why: `root ${alt.path}, read when no AGENTS.md applies` });
  }
  return { attached, skipped };
}

/**
 * Which files each glob matches, computed once per glob and matching style (github.com's two
 * surfaces share one), so the figure before and after and on every surface tests each glob
 * against each file at most twice.
 */
export class GlobHits {
  private readonly memo = new Map<string, Uint8Array>();
  constructor(private readonly files: readonly string[]) {}
  of(glob: string, surface: Surface): Uint8Array {
    const key = `${surface === 'vscode-chat' ? 'v' : 'g'}\u0000${glob}`;
    let hits = this.memo.get(key);
    if (!hits) {
      const test = surfaceGlob(glob, surface).test;
      hits = new Uint8Array(this.files.length);
      for (let i = 0; i < this.files.length; i++) if (test(this.files[i]!)) hits[i] = 1;
      this.memo.set(key, hits);
    }
    return hits;
  }
}

/** Characters attached per tree file, in `files` order, on one surface. Each glob compiled and tested once (`hits`). */
export function charsPerFile(rules: readonly LoadRule[], files: readonly string[], surface: Surface, hits = new GlobHits(files)): Float64Array {
  const total = new Float64Array(files.length);
  let always = 0;
  for (const r of rules) if (r.kind === 'repo-wide') always += r.chars;
  if (always) total.fill(always);
  for (const r of rules) {
    if (r.kind !== 'scoped' || r.excludedOn.includes(surface) || !r.globs.length) continue;
    const sets = r.globs.map((g) => hits.of(g, surface));
    for (let i = 0; i < files.length; i++) {
      for (const set of sets) {
        if (set[i]) {
          total[i]! += r.chars;
          break;
        }
      }
    }
  }
  const agents = rules.filter((r) => r.kind === 'agents');
  const alt = surface !== 'vscode-chat' ? rules.find((r) => r.kind === 'claude') ?? rules.find((r) => r.kind === 'gemini') : undefined;
  if (agents.length || alt) {
    const rootAgents = agents.find((r) => r.dir === '');
    for (let i = 0; i < files.length; i++) {
      const a = surface === 'vscode-chat' ? rootAgents : nearestAgents(agents, files[i]!);
      if (a) total[i]! += a.chars;
      else if (alt) total[i]! += alt.chars;
    }
  }
  return total;
}

/** For each of `files`, 1 where `surface` attaches the instruction file at `path` (the same choice as charsPerFile). */
export function attachedMask(rules: readonly LoadRule[], path: string, files: readonly string[], surface: Surface, hits = new GlobHits(files)): Uint8Array {
  const mask = new Uint8Array(files.length);
  const r = rules.find((x) => x.path === path);
  if (!r) return mask;
  if (r.kind === 'repo-wide') return mask.fill(1);
  if (r.kind === 'scoped') {
    if (r.excludedOn.includes(surface)) return mask;
    for (const g of r.globs) {
      const set = hits.of(g, surface);
      for (let i = 0; i < files.length; i++) if (set[i]) mask[i] = 1;
    }
    return mask;
  }
  const agents = rules.filter((x) => x.kind === 'agents');
  const rootAgents = agents.find((x) => x.dir === '');
  const alt = surface !== 'vscode-chat' ? rules.find((x) => x.kind === 'claude') ?? rules.find((x) => x.kind === 'gemini') : undefined;
  for (let i = 0; i < files.length; i++) {
    const chosen = (surface === 'vscode-chat' ? rootAgents : nearestAgents(agents, files[i]!)) ?? alt;
    if (chosen === r) mask[i] = 1;
  }
  return mask;
}

export interface Stats {
  files: number;
  mean: number;
  median: number;
  p90: number;
  max: number;
}

/** Mean (rounded), median, 90th percentile (nearest rank) and max of a list of sizes. */
export function stats(values: ArrayLike<number>): Stats {
  const n = values.length;
  if (!n) return { files: 0, mean: 0, median: 0, p90: 0, max: 0 };
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i]!;
  const mid = n >> 1;
  const median = n % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { files: n, mean: Math.round(sum / n), median: Math.round(median), p90: sorted[Math.ceil(0.9 * n) - 1]!, max: sorted[n - 1]! };
}

interface FolderFigure {
  /** The top-level folder, or `.` for the files at the root. */
  folder: string;
  before: Stats;
  after: Stats;
}

interface SurfaceFigure {
  surface: Surface;
  before: Stats;
  after: Stats;
  folders: FolderFigure[];
  /**
   * Of those characters, the ones that are a second (third, …) copy of a rule: the same rule in
   * two instruction files this surface attaches together (core/agents/duplicate-cost.ts). Absent
   * when not measured.
   */
  duplicated?: { before: Stats; after: Stats };
}

export interface LoadFigure {
  /** Tree files counted (vendored and generated folders left out). */
  files: number;
  headline: Surface;
  /** Characters every request carries: the repository-wide file. */
  alwaysOn: { before: number; after: number };
  surfaces: SurfaceFigure[];
}

function topFolder(f: string): string {
  const i = f.indexOf('/');
  return i < 0 ? '.' : f.slice(0, i);
}

/** The figure of a tree: per surface, the characters attached per file before and after, overall and per top-level folder. */
export function loadFigure(files: readonly string[], before: readonly InstructionText[], after: readonly InstructionText[]): LoadFigure {
  const tree = treeFiles(files);
  const rb = loadRules(before);
  const ra = loadRules(after);
  const groups = new Map<string, number[]>();
  tree.forEach((f, i) => {
    const k = topFolder(f);
    const g = groups.get(k);
    if (g) g.push(i);
    else groups.set(k, [i]);
  });
  const folderNames = [...groups.keys()].sort();
  const pick = (all: Float64Array, idx: number[]) => stats(idx.map((i) => all[i]!));
  const hits = new GlobHits(tree);
  const surfaces = SURFACES.map((surface): SurfaceFigure => {
    const b = charsPerFile(rb, tree, surface, hits);
    const a = charsPerFile(ra, tree, surface, hits);
    return {
      surface,
      before: stats(b),
      after: stats(a),
      folders: folderNames.map((folder) => ({ folder, before: pick(b, groups.get(folder)!), after: pick(a, groups.get(folder)!) })),
    };
  });
  const always = (rules: LoadRule[]) => rules.filter((r) => r.kind === 'repo-wide').reduce((n, r) => n + r.chars, 0);
  return { files: tree.length, headline: HEADLINE_SURFACE, alwaysOn: { before: always(rb), after: always(ra) }, surfaces };
}

/** `6.1 K` from 6,123; numbers under 1,000 as they are. */
export function kChars(n: number): string {
  return n < 1000 ? String(Math.round(n)) : `${(n / 1000).toFixed(1)} K`;
}

/** The one line a person approves for: the headline surface's mean and max per file, after against before. */
export function figureLine(f: LoadFigure): string {
  const s = f.surfaces.find((x) => x.surface === f.headline)!;
  if (!f.files) return 'Copilot attaches instruction characters per file in play; this tree has no file to measure.';
  if (s.before.mean === s.after.mean && s.before.max === s.after.max) {
    return `Copilot attaches on average ${kChars(s.after.mean)} instruction characters per file; at most ${kChars(s.after.max)} (the plan does not change it).${duplicateNote(s)}`;
  }
  return `Copilot attaches on average ${kChars(s.after.mean)} instruction characters per file instead of ${kChars(s.before.mean)}; at most ${kChars(s.after.max)}.${duplicateNote(s)}`;
}

/** " Of these, …" when some rules are attached twice (the same text in two files attached together), before or after. */
function duplicateNote(s: SurfaceFigure): string {
  const d = s.duplicated;
  if (!d || (d.before.max === 0 && d.after.max === 0)) return '';
  return ` Rules attached twice (the same text in two instruction files) account for ${kChars(d.after.mean)} of those characters on average, instead of ${kChars(d.before.mean)}.`;
}

/** A warning when a configured budget of characters per file is passed (there is no fixed limit). */
export interface BudgetWarning {
  code: 'REPO_WIDE_TOO_LONG' | 'OVER_BUDGET';
  message: string;
}

/**
 * Warnings against `budget` characters per file, after the plan, on the headline surface:
 * REPO_WIDE_TOO_LONG when the always-on file alone passes it (no scope can help those files),
 * else OVER_BUDGET naming the top-level folders whose largest file passes it.
 */
export function budgetWarnings(f: LoadFigure, budget: number | undefined): BudgetWarning[] {
  if (budget === undefined) return [];
  const s = f.surfaces.find((x) => x.surface === f.headline)!;
  const fmt = thousands;
  if (f.alwaysOn.after > budget) {
    return [{ code: 'REPO_WIDE_TOO_LONG', message: `${REPO_WIDE_PATH} keeps ${fmt(f.alwaysOn.after)} characters after the plan, attached to every request; the budget is ${fmt(budget)} per file.` }];
  }
  if (s.after.max <= budget) return [];
  const over = s.folders.filter((x) => x.after.max > budget).sort((a, b) => b.after.max - a.after.max);
  const names = over.slice(0, 5).map((x) => `${x.folder === '.' ? 'the root' : `${x.folder}/`} (at most ${fmt(x.after.max)})`);
  return [{ code: 'OVER_BUDGET', message: `Files in ${names.join(', ')}${over.length > 5 ? ` and ${over.length - 5} more folders` : ''} get more than the budget of ${fmt(budget)} instruction characters.` }];
}
