/**
 * `copilot-onboarding explain <path> [--workspace DIR] [--json]`: which instruction files Copilot
 * attaches when <path> is in play, on each surface, before and after the plan, and why (the
 * glob that matched, the nearest AGENTS.md, excludeAgent). Reads only; stores nothing.
 * Security: paths and globs come from the workspace; the text is sanitized before it is printed.
 */
import type { Command } from 'commander';
import { explain } from '../app/explain.js';
import type { Explanation } from '../app/loads.js';
import type { Attached } from '../core/loads.js';
import { sanitizeLines, thousands } from '../core/sanitize.js';
import { jsonOk, resolveWorkspace, writeJson, type CliIo } from './common.js';

const n = thousands;

function side(label: string, s: { attached: Attached[]; skipped: Attached[]; chars: number }): string[] {
  const lines = [`  ${label}: ${n(s.chars)} characters`];
  for (const a of s.attached) lines.push(`    ${a.path} (${n(a.chars)}): ${a.why}`);
  if (!s.attached.length) lines.push('    no instruction file');
  for (const a of s.skipped) lines.push(`    not attached: ${a.path} (${n(a.chars)}): ${a.why}`);
  return lines;
}

export function explainText(e: Explanation): string {
  const plan = e.plan
    ? e.plan.source === 'current'
      ? `the current plan ${e.plan.planId}`
      : `plan ${e.plan.planId}, made now from the workspace (no current plan, or it no longer matches the files; not stored)`
    : 'no plan (no Copilot instruction file to split)';
  const lines = [`What Copilot attaches when ${e.path} is in play, before and after ${plan}.`];
  if (!e.inTree) lines.push(`Note: ${e.path} is not a file of the workspace tree; it is matched as written.`);
  for (const s of e.surfaces) {
    lines.push('', `${s.name}:`, ...side('now', s.before), ...side('after the plan', s.after));
  }
  lines.push('', 'Rules per surface, with their sources: docs/loads.md.');
  return lines.join('\n');
}

export function registerExplainCommand(program: Command, io: CliIo): void {
  program
    .command('explain <path>')
    .description('Show which instruction files Copilot attaches for <path> on each surface, before and after the plan, and why (reads only).')
    .option('-w, --workspace <dir>', 'workspace root (else COPILOT_ONBOARDING_WORKSPACE, else the current folder)')
    .option('--json', 'print a JSON envelope {ok, command, data}')
    .action(async (file: string, o: { workspace?: string; json?: boolean }) => {
      const root = resolveWorkspace(o.workspace, io);
      const e = await explain(root, file);
      if (o.json) writeJson(io.stdout, jsonOk('explain', e));
      else io.stdout.write(`${sanitizeLines(explainText(e))}\n`);
    });
}
