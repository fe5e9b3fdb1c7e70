/**
 * What happens to each other agent's file (issue 21): converted into a Copilot file (to what,
 * and why) or kept as it is (why). core/agents/plan.ts applies these decisions in the plan;
 * analyze shows them (agentOutlook) without loading the planner, so the `analyze` command starts
 * without the plan code and its schemas.
 */
import type { PlanBody } from '../../schemas/plan.js';
import { joinApplyTo } from '../copilot-format.js';
import { slugify } from '../slug.js';
import { type AgentInventory, type InventoryEntry, surfaceList } from './inventory.js';
import { FORMATS, folderOf } from './formats.js';

type Conversion = NonNullable<PlanBody['agents']>['conversions'][number];

/** What a rule converts to, or why it stays as it is. */
export type Decision = { convert: Omit<Conversion, 'output' | 'bodyStart' | 'bodyEnd'> & { slugBase: string } } | { keep: string };

const GLOB_CHARS = /[*?[\]{},!]/;

export function decide(e: InventoryEntry): Decision {
  if (e.linkTo !== null) return { keep: `it is a symlink to ${e.linkTo}, so it always reads what that file holds` };
  const empty = e.bodyStart >= e.size;
  if (e.format === 'cursor-rule' || e.format === 'windsurf-rule') {
    const rule = e.rule!;
    const name = e.path.slice(e.path.lastIndexOf('/') + 1).replace(/\.(mdc|md)$/, '');
    const agent = FORMATS[e.format].agent;
    const broken = rule.problems.filter((p) => !p.startsWith('glob '));
    if (broken.length) return { keep: `its front matter cannot be read exactly (${broken.join('; ')}), so its activation is unknown; ${agent} is left to read it as it does` };
    if (empty) return { keep: 'it has no rule text after its front matter' };
    const base = { source: e.path, format: e.format, excludeAgent: null, slugBase: slugify(`${e.format === 'cursor-rule' ? 'cursor' : 'windsurf'}-${name}`) };
    if (rule.activation === 'glob') {
      const unsafe = rule.problems.filter((p) => p.startsWith('glob '));
      if (unsafe.length) return { keep: `${unsafe.join('; ')}; a Copilot applyTo must stay inside the repository` };
      return { convert: { ...base, applyTo: joinApplyTo(rule.globs), description: rule.description, why: `${agent} applies it to files matching its globs; applyTo does the same for Copilot` } };
    }
    if (rule.activation === 'always') {
      return { convert: { ...base, applyTo: '**', description: rule.description, why: `${agent} applies it always; applyTo "**" applies it to every file` } };
    }
    if (rule.activation === 'description') {
      if (!rule.description) return { keep: 'the agent picks it by description, but it has none' };
      return { convert: { ...base, applyTo: null, description: rule.description, why: `${agent} picks it by its description; Copilot (VS Code) matches instruction files on their description` } };
    }
    return { keep: `${agent} applies it only when a person mentions it; Copilot instruction files have no manual mode` };
  }
  if (e.format === 'agents-md-nested') {
    const folder = folderOf(e.path);
    if (GLOB_CHARS.test(folder)) return { keep: `its folder name ${folder} holds glob characters, so no applyTo names exactly that folder` };
    if (empty) return { keep: 'it is empty' };
    return {
      convert: {
        source: e.path,
        format: e.format,
        applyTo: `${folder}/**`,
        description: `Instructions for ${folder}/, from ${e.path}`,
        excludeAgent: 'coding-agent',
        slugBase: slugify(`agents-${folder.replace(/\//g, '-')}`),
        why: `nested AGENTS.md files are read by ${surfaceList(FORMATS['agents-md-nested'].readBy.filter((r) => !r.off))}, not by code review, Visual Studio, JetBrains, Xcode or VS Code at its default settings; this scoped file reaches those, and excludes the cloud agent, which reads the AGENTS.md itself`,
      },
    };
  }
  if (FORMATS[e.format].readBy.some((r) => !r.off)) return { keep: `it is read as it is by ${surfaceList(FORMATS[e.format].readBy.filter((r) => !r.off))}` };
  return { keep: `no Copilot surface reads it; ${FORMATS[e.format].agent} keeps reading it as it is (splitting its headed content into Copilot files is not built yet)` };
}

/** For each other agent's source, in inventory order: converted (to what) or kept (why). analyze shows it; the plan applies it. */
export function agentOutlook(inv: AgentInventory): Array<{ path: string; convert: { applyTo: string | null; description: string | null; why: string } | null; keep: string | null }> {
  return inv.sources
    .filter((e) => e.format !== 'copilot-repo' && e.format !== 'copilot-path')
    .map((e) => {
      const d = decide(e);
      return 'keep' in d ? { path: e.path, convert: null, keep: d.keep } : { path: e.path, convert: { applyTo: d.convert.applyTo, description: d.convert.description, why: d.convert.why }, keep: null };
    });
}
