/**
 * Other agents' files in the plan (issue 21). buildOnboardingPlan = core/plan.ts buildPlan for
 * Copilot's own files, then:
 * - what maps exactly is converted into a new `.github/instructions/*.instructions.md`: a Cursor
 *   or Windsurf rule with globs gets that applyTo; an always-on rule gets `applyTo: "**"`; a rule
 *   the agent picks by description gets that description and no applyTo; a nested AGENTS.md gets
 *   `applyTo: "<folder>/**"` for the surfaces that do not read nested AGENTS.md files (it
 *   excludes the cloud agent, which does). The rule text is copied byte for byte (a piece of the
 *   lossless proof) and the source stays as it is, so its agent keeps every rule it had;
 * - everything else is kept as it is, with the reason; when the plan changes nothing it says
 *   why nothing needs to move.
 * Which file is converted and which kept is decided in core/agents/outlook.ts (analyze shows it).
 * Every other agent's source is recorded in the plan's sources (its hash is checked before
 * anything is written). A workspace without other agents' files gets buildPlan's plan unchanged.
 */
import type { Snapshot, SourceFile } from '../types.js';
import type { Operation, Plan, PlanBody } from '../../schemas/plan.js';
import { type BuildPlanInput, buildPlan, dominantEol, planHash } from '../plan.js';
import { checkLossless } from '../lossless.js';
import { sha256Hex } from '../canonical.js';
import { INSTRUCTIONS_DIR, INSTRUCTIONS_SUFFIX, instructionPath, renderDescriptionFrontMatter, renderFrontMatter } from '../copilot-format.js';
import { slugAllocator } from '../slug.js';
import { type AgentInventory, agentInventory } from './inventory.js';
import { FORMATS, formatOf } from './formats.js';
import { decide } from './outlook.js';
import { ErrorCode, OnboardingError } from '../errors.js';

type Agents = NonNullable<PlanBody['agents']>;
type Conversion = Agents['conversions'][number];

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Lower-cased slugs already used under .github/instructions (files, sources, the base plan's outputs). */
function takenSlugs(snapshot: Snapshot, base: Plan): Set<string> {
  const taken = new Set<string>();
  const prefix = `${INSTRUCTIONS_DIR}/`.toLowerCase();
  const suffix = INSTRUCTIONS_SUFFIX.toLowerCase();
  const paths = [...snapshot.files, ...(snapshot.taken ?? []), ...snapshot.sources.map((s) => s.path), ...snapshot.refused.map((r) => r.path), ...base.operations.map((o) => o.path)];
  for (const p of paths) {
    const l = p.toLowerCase();
    if (l.startsWith(prefix) && l.endsWith(suffix)) {
      const rest = l.slice(prefix.length, l.length - suffix.length);
      if (rest && !rest.includes('/')) taken.add(rest);
    }
  }
  return taken;
}

function nothingToMove(inv: AgentInventory, kept: Agents['kept'], base: Plan): string {
  const why = kept.map((k) => `${k.path}: ${k.reason}`);
  const copilot = inv.sources.filter((s) => s.format === 'copilot-repo' || s.format === 'copilot-path').length;
  const lead = copilot ? (base.operations.length === 0 ? "no section of Copilot's own files has a confident path-specific scope" : '') : "there is no Copilot instruction file to split";
  return [lead, ...why].filter(Boolean).join('; ');
}

/** The conversions, the files kept as they are, and why nothing moves when nothing does. */
function planAgents(snapshot: Snapshot, inv: AgentInventory, base: Plan): { agents: Agents; operations: Operation[]; outputs: PlanBody['lossless']['outputs']; bytes: Map<string, Uint8Array> } {
  const bySource = new Map(snapshot.sources.map((s) => [s.path, s]));
  const allocate = slugAllocator(takenSlugs(snapshot, base));
  const conversions: Conversion[] = [];
  const kept: Agents['kept'] = [];
  const operations: Operation[] = [];
  const outputs: PlanBody['lossless']['outputs'] = [];
  const bytes = new Map<string, Uint8Array>();
  for (const e of inv.sources) {
    if (e.format === 'copilot-repo' || e.format === 'copilot-path') continue;
    const d = decide(e);
    if ('keep' in d) {
      kept.push({ path: e.path, format: e.format, reason: d.keep });
      continue;
    }
    const src = bySource.get(e.path) as SourceFile;
    const { slugBase, ...c } = d.convert;
    const output = instructionPath(allocate(slugBase));
    const eol = dominantEol(src.bytes);
    const description = c.description ?? `Converted from ${e.path}`;
    const fm = c.applyTo === null ? renderDescriptionFrontMatter(description, eol) : renderFrontMatter({ applyTo: c.applyTo, description, ...(c.excludeAgent ? { excludeAgent: c.excludeAgent } : {}) }, eol);
    const head = Buffer.from(fm, 'utf8');
    const body = Buffer.from(src.bytes.buffer, src.bytes.byteOffset + e.bodyStart, e.size - e.bodyStart);
    const out = Buffer.concat([head, body]);
    conversions.push({ ...c, description, output, bodyStart: e.bodyStart, bodyEnd: e.size });
    operations.push({ op: 'create', path: output, size: out.length, sha256: sha256Hex(out), content: out.toString('utf8'), previousSha256: null });
    outputs.push({
      path: output,
      pieces: [{ sourcePath: e.path, sourceStart: e.bodyStart, sourceEnd: e.size, outputStart: head.length, outputEnd: out.length }],
      generated: [{ outputStart: 0, outputEnd: head.length, what: 'front-matter' }],
    });
    bytes.set(output, out);
  }
  const dups = inv.duplicates;
  const agents: Agents = {
    conversions,
    kept,
    duplicates: { exact: dups.filter((d) => d.kind === 'exact').length, near: dups.filter((d) => d.kind === 'near').length, loadedTwice: dups.filter((d) => d.loadedTwiceBy.length).length },
    nothingToMove: base.operations.length === 0 && operations.length === 0 ? nothingToMove(inv, kept, base) : null,
  };
  return { agents, operations, outputs, bytes };
}

/** buildPlan, plus other agents' files when the workspace has any. */
export function buildOnboardingPlan(input: BuildPlanInput): Plan {
  const base = buildPlan(input);
  const inv = input.analysis.agents ?? agentInventory(input.snapshot);
  const others = input.snapshot.sources.filter((s) => s.kind === 'other-agent');
  if (!others.length) return base;
  // No other agent may lose a rule: a file of theirs that is a symlink to a Copilot file the plan changes would.
  const changed = new Set(base.operations.filter((o) => o.op !== 'create').map((o) => o.path));
  const linked = others.filter((s) => s.linkTo !== undefined && changed.has(s.linkTo));
  if (linked.length) {
    const l = linked[0]!;
    throw new OnboardingError(
      ErrorCode.INVALID_INPUT,
      `${l.path} is a symlink to ${l.linkTo}, which this plan would ${base.operations.find((o) => o.path === l.linkTo)!.op}: ${FORMATS[formatOf(l.path)!].agent} would lose the sections that move out of it${linked.length > 1 ? ` (and ${linked.length - 1} more such link${linked.length > 2 ? 's' : ''})` : ''}.`,
      { next: `Keep those sections repository-wide with overrides ({ "section": "…", "keepRepoWide": true }), or replace the symlink with a copy of the file, then run onboarding_propose again.` },
    );
  }
  const { agents, operations, outputs, bytes } = planAgents(input.snapshot, inv, base);

  const { planId: _id, sha256: _sha, ...baseBody } = base;
  const sources = [...baseBody.sources, ...others.map((s) => ({ path: s.path, kind: s.kind, size: s.size, sha256: s.sha256 }))].sort((a, b) => cmp(a.path, b.path));
  // The conversions' own proof: each output is generated front matter plus one verbatim range of its source.
  const own = checkLossless(
    { ...baseBody, sources, operations, lossless: { outputs, coveredSources: [], ok: true } },
    new Map(others.map((s) => [s.path, s.bytes])),
    bytes,
    true,
  );
  const riskReasons = baseBody.riskReasons.filter((r) => !(operations.length && r.startsWith('nothing to migrate')) && !(operations.length && r.startsWith('no problems found')));
  let risk = baseBody.risk;
  if (!own.ok) {
    risk = 'high';
    riskReasons.unshift(`the lossless check of the converted rules failed: ${own.errors.slice(0, 3).join('; ')}`);
  }
  const hostile = agents.kept.filter((k) => k.reason.startsWith('its front matter cannot') || k.reason.includes('a Copilot applyTo must stay'));
  if (hostile.length) {
    if (risk === 'low') risk = 'medium';
    riskReasons.push(`${hostile.length} rule file(s) kept as they are because they cannot be converted exactly: ${hostile.map((k) => k.path).join(', ')}`);
  }
  if (agents.conversions.length) riskReasons.push(`${agents.conversions.length} other agent rule file(s) copied into Copilot files (the originals stay as they are)`);
  const body: PlanBody = {
    ...baseBody,
    sources,
    operations: [...baseBody.operations, ...operations],
    risk,
    riskReasons,
    agents,
    lossless: { ...baseBody.lossless, outputs: [...baseBody.lossless.outputs, ...outputs], ok: baseBody.lossless.ok && own.ok },
  };
  const sha256 = planHash(body);
  return { ...body, planId: sha256.slice(0, 16), sha256 };
}
