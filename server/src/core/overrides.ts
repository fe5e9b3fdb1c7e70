/**
 * Overrides: the agent's or the human's corrections to the inferred plan (keep a section
 * repository-wide, give it an applyTo, send it to a named file, keep a Copilot agent from
 * reading its file). They arrive as untrusted input,
 * so every one is parsed, checked against the analysed sections and normalised here before the
 * plan uses it; the normalised form is what the plan stores, so the same corrections always give
 * the same plan bytes.
 *
 * Security: globs must be relative to the repository root, without `..`, NUL or line breaks,
 * and destinations must be plain slugs, so an override can never point a write outside
 * `.github/instructions/`.
 */
import type { Section } from './types.js';
import type { ExcludeAgent, Override } from '../schemas/plan.js';
import { OverrideSchema } from '../schemas/plan.js';
import { INSTRUCTIONS_DIR, INSTRUCTIONS_SUFFIX, REPO_WIDE_PATH, instructionPath, joinApplyTo, splitApplyTo } from './copilot-format.js';
import { ErrorCode, OnboardingError } from './errors.js';
import { hasUnsafe } from './sanitize.js';
import { SLUG_RE, isReservedSlug, slugify } from './slug.js';

const MAX_GLOB_LENGTH = 1024;
const MAX_SLUG_LENGTH = 64;

/** An INVALID_INPUT error with the next step for the caller. */
export function invalid(message: string, next: string, details?: Record<string, unknown>): OnboardingError {
  return new OnboardingError(ErrorCode.INVALID_INPUT, message, { next, ...(details ? { details } : {}) });
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface NormOverride {
  section: string;
  keepRepoWide?: true;
  applyTo?: string;
  /** Slug (the stored form is the full path). */
  slug?: string;
  excludeAgent?: ExcludeAgent;
}

const GLOB_NEXT = 'Use globs relative to the repository root, such as "src/**/*.ts".';

function validateGlob(g: string): string | null {
  if (g.trim() === '') return 'is empty';
  if (g.length > MAX_GLOB_LENGTH) return `is longer than ${MAX_GLOB_LENGTH} characters`;
  if (/[\0\r\n]/.test(g)) return 'contains a NUL or line break';
  if (/^[/\\~]/.test(g) || /^[A-Za-z]:/.test(g)) return 'is absolute (globs are relative to the repository root)';
  if (g.split(/[/\\]/).some((seg) => seg === '..')) return 'contains a ".." segment';
  return null;
}

function normaliseApplyTo(value: string | string[], sectionRef: string): string {
  const values = Array.isArray(value) ? value : [value];
  // Checked before splitting: splitting trims, and trim() drops U+2028, U+2029 and U+FEFF at the ends.
  for (const v of values) {
    if (/[\0\r\n]/.test(v)) throw invalid(`The applyTo glob ${JSON.stringify(v.slice(0, 100))} for "${sectionRef}" contains a NUL or line break.`, GLOB_NEXT);
    if (hasUnsafe(v)) throw invalid(`The applyTo glob ${JSON.stringify(v.slice(0, 100))} for "${sectionRef}" contains a control, bidi or separator character.`, GLOB_NEXT); // safety: applyto-unsafe-chars
  }
  const globs = values.flatMap((v) => splitApplyTo(v));
  if (!globs.length) throw invalid(`The applyTo override for "${sectionRef}" has no glob.`, 'Give one or more globs, e.g. "**/*.ts,**/*.tsx".');
  const out: string[] = [];
  for (const g of globs) {
    const why = validateGlob(g);
    if (why) throw invalid(`The applyTo glob ${JSON.stringify(g.slice(0, 100))} for "${sectionRef}" ${why}.`, GLOB_NEXT);
    if (!out.includes(g)) out.push(g);
  }
  return joinApplyTo(out);
}

/** `slug` or `.github/instructions/<slug>.instructions.md` -> slug; the repository-wide path -> null. */
function parseDestination(dest: string, sectionRef: string): { slug: string } | { repoWide: true } {
  const d = dest.trim();
  if (d === REPO_WIDE_PATH) return { repoWide: true };
  const prefix = `${INSTRUCTIONS_DIR}/`;
  let slug = d;
  if (d.startsWith(prefix) && d.endsWith(INSTRUCTIONS_SUFFIX)) slug = d.slice(prefix.length, d.length - INSTRUCTIONS_SUFFIX.length);
  if (!SLUG_RE.test(slug) || slug.length > MAX_SLUG_LENGTH || isReservedSlug(slug)) {
    throw invalid(
      `The destination ${JSON.stringify(dest.slice(0, 200))} for "${sectionRef}" is not a slug (lower-case letters, digits and single dashes, at most ${MAX_SLUG_LENGTH} characters, not a reserved device name) nor ${INSTRUCTIONS_DIR}/<slug>${INSTRUCTIONS_SUFFIX}.`,
      `Use e.g. "${slugify(d)}" or "${instructionPath(slugify(d))}".`,
    );
  }
  return { slug };
}

/** The sections the well-formed section overrides name (id or heading, trimmed); resolveOverrides judges them all. */
export function namedSections(overrides: readonly unknown[]): Set<string> {
  return new Set(overrides.flatMap((raw) => {
    const o = OverrideSchema.safeParse(raw);
    return o.success ? [o.data.section.trim()] : [];
  }));
}

export function resolveOverrides(overrides: readonly unknown[], sections: readonly Section[]): Map<string, NormOverride> {
  const byId = new Map(sections.map((s) => [s.id, s]));
  const out = new Map<string, NormOverride>();
  const valid = (): string => sections.map((s) => `${s.id} (${JSON.stringify(s.title)})`).slice(0, 60).join(', ') + (sections.length > 60 ? ', …' : '');
  for (const raw of overrides) {
    const parsed = OverrideSchema.safeParse(raw);
    if (!parsed.success) {
      throw invalid(`An override is malformed: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'override'}: ${i.message}`).join('; ')}.`, 'Each override is { section, keepRepoWide?, applyTo?, destination?, excludeAgent? }.');
    }
    const o = parsed.data;
    let section = byId.get(o.section);
    if (!section) {
      const byTitle = sections.filter((s) => s.title === o.section || s.title.trim() === o.section.trim());
      if (byTitle.length > 1) {
        throw invalid(`The override section "${o.section}" matches ${byTitle.length} sections: ${byTitle.map((s) => s.id).join(', ')}.`, 'Name the section by its id.', { sections: byTitle.map((s) => s.id) });
      }
      section = byTitle[0];
    }
    if (!section) {
      throw invalid(`Unknown section "${o.section.slice(0, 200)}" in overrides. Valid sections: ${valid() || 'none'}.`, 'Use a section id (or exact heading text) from onboarding_analyze or the last plan.', {
        validSections: sections.map((s) => s.id),
      });
    }
    if (out.has(section.id)) throw invalid(`Two overrides name section ${section.id}.`, 'Give at most one override per section.');
    const n: NormOverride = { section: section.id };
    if (o.applyTo !== undefined) n.applyTo = normaliseApplyTo(o.applyTo, section.id);
    let repoWideDest = false;
    if (o.destination !== undefined) {
      const d = parseDestination(o.destination, section.id);
      if ('slug' in d) n.slug = d.slug;
      else repoWideDest = true;
    }
    if (o.keepRepoWide === true || repoWideDest) {
      if (n.applyTo !== undefined || n.slug !== undefined) {
        throw invalid(`The override for ${section.id} both keeps it repository-wide and gives it ${n.applyTo !== undefined ? 'an applyTo' : 'a path-specific destination'}.`, 'Choose one.');
      }
      n.keepRepoWide = true;
    }
    if (o.excludeAgent !== undefined) {
      if (n.keepRepoWide || section.kind === 'frontmatter') {
        throw invalid(`The override for ${section.id} keeps it repository-wide and gives it excludeAgent, which only a path-specific file can carry.`, 'Drop excludeAgent, or give the section an applyTo or a destination.');
      }
      n.excludeAgent = o.excludeAgent;
    }
    if (section.kind === 'frontmatter' && (n.applyTo !== undefined || n.slug !== undefined)) {
      throw invalid(`${section.id} is the front matter of ${section.sourcePath}; it stays in that file.`, 'Remove this override.');
    }
    out.set(section.id, n);
  }
  return out;
}

export function storedOverrides(resolved: Map<string, NormOverride>): Override[] {
  return [...resolved.values()]
    .sort((a, b) => cmp(a.section, b.section))
    .map((n) => {
      const o: Override = { section: n.section };
      if (n.keepRepoWide) o.keepRepoWide = true;
      if (n.applyTo !== undefined) o.applyTo = n.applyTo;
      if (n.slug !== undefined) o.destination = instructionPath(n.slug);
      if (n.excludeAgent !== undefined) o.excludeAgent = n.excludeAgent;
      return o;
    });
}
