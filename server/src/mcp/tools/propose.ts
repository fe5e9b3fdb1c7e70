import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { OverrideSchema, type Plan } from '../../schemas/plan.js';
import { narrate } from '../narrate.js';
import { propose } from '../../app/propose.js';
import { recover } from '../../app/recover.js';
import type { ToolContext } from '../context.js';
import { guarded, success } from './result.js';
import { rel, traceDirName } from '../../io/layout.js';
import { narrationShape, problemShape, recoveryShape } from './schemas.js';

export const proposeInput = {
  overrides: z
    .array(OverrideSchema)
    .max(1000)
    .optional()
    .describe(
      "Per-section changes after asking the human (e.g. with question_ask): {section: id or heading, keepRepoWide?, applyTo?: 'glob,glob' or [globs], destination?: slug}.",
    ),
  narrate: z.boolean().optional().describe('Explain the plan through the client model (MCP sampling). Default true; the plan never depends on it.'),
};

export const proposeOutput = {
  planId: z.string(),
  sha256: z.string(),
  planFile: z.string(),
  pattern: z.string(),
  risk: z.enum(['low', 'medium', 'high']),
  riskReasons: z.array(z.string()),
  nothingToMigrate: z.boolean(),
  operations: z.array(z.object({ op: z.enum(['create', 'modify', 'delete']), path: z.string(), size: z.number().int(), sha256: z.string().nullable() })),
  sections: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      startLine: z.number().int(),
      endLine: z.number().int(),
      destination: z.string(),
      applyTo: z.string().nullable(),
      evidence: z.array(z.string()),
      decidedBy: z.string(),
      proposed: z.boolean(),
    }),
  ),
  problems: z.array(problemShape),
  lossless: z.object({ ok: z.boolean(), coveredSources: z.array(z.string()) }),
  narration: narrationShape,
  recovery: recoveryShape,
};

export function planFacts(plan: Plan, planFile: string) {
  return {
    planId: plan.planId,
    sha256: plan.sha256,
    planFile,
    pattern: plan.pattern,
    risk: plan.risk,
    riskReasons: plan.riskReasons,
    nothingToMigrate: plan.operations.length === 0,
    operations: plan.operations.map((o) => ({ op: o.op, path: o.path, size: o.size, sha256: o.sha256 })),
    sections: plan.sections.map((s) => ({
      id: s.id,
      title: s.title,
      startLine: s.startLine,
      endLine: s.endLine,
      destination: s.destination,
      applyTo: s.applyTo,
      evidence: s.evidence,
      decidedBy: s.decidedBy,
      proposed: s.proposed,
    })),
    problems: plan.problems,
    lossless: { ok: plan.lossless.ok, coveredSources: plan.lossless.coveredSources },
  };
}

export function planText(f: ReturnType<typeof planFacts>): string {
  const lines = [`Plan ${f.planId} (sha256 ${f.sha256.slice(0, 12)}…), stored in ${f.planFile}. Pattern: ${f.pattern}. Risk: ${f.risk}.`];
  if (f.nothingToMigrate) lines.push('Nothing to migrate: no section has a confident path scope, or the repository is already migrated.');
  lines.push('', '| section | lines | destination | applyTo | evidence |', '|---|---|---|---|---|');
  for (const s of f.sections.slice(0, 80)) {
    lines.push(`| ${s.title.replace(/\|/g, '\\|').slice(0, 60)} | ${s.startLine}-${s.endLine} | ${s.destination} | ${s.applyTo ? `"${s.applyTo}"` : '(repo-wide)'} | ${s.evidence.slice(0, 3).join('; ').replace(/\|/g, '\\|') || '—'} |`);
  }
  if (f.sections.length > 80) lines.push(`| … ${f.sections.length - 80} more | | | | |`);
  lines.push('', 'Operations:');
  for (const o of f.operations) lines.push(`  ${o.op.padEnd(6)} ${o.path} (${o.size.toLocaleString('en-US')} bytes)`);
  if (!f.operations.length) lines.push('  none');
  lines.push(f.lossless.ok ? 'Lossless check passed: every source byte lands in exactly one output, in order.' : 'Lossless check FAILED.');
  lines.push('Nothing was changed. Next: onboarding_approve asks the human to approve this exact plan.');
  return lines.join('\n');
}

export function registerProposeTool(mcp: McpServer, ctx: ToolContext): void {
  mcp.registerTool(
    'onboarding_propose',
    {
      title: 'Propose a migration plan',
      description:
        'Build a deterministic, lossless plan that moves sections with a confident path scope into .github/instructions/<slug>.instructions.md ' +
        '(applyTo front matter) and keeps the rest in .github/copilot-instructions.md. Stores the plan in .copilot-state/plans/. Changes no instruction file.',
      inputSchema: proposeInput,
      outputSchema: proposeOutput,
      annotations: { title: 'Propose plan', readOnlyHint: true, openWorldHint: false },
    },
    async ({ overrides, narrate: wantNarration }, extra) =>
      guarded(async () => {
        const root = await ctx.root();
        const recovery = await recover(root);
        const { plan, planFile } = await propose(root, overrides);
        const facts = planFacts(plan, planFile);
        const fallback = planText(facts);
        const n = await narrate(
          mcp.server,
          extra,
          {
            intent: 'propose',
            facts: { ...facts, sections: facts.sections.slice(0, 40).map((s) => ({ ...s, evidence: s.evidence.slice(0, 3) })) },
            fallback,
            timeoutMs: ctx.config.samplingTimeoutMs,
            enabled: wantNarration !== false,
          },
          ctx.samplingTraces(root),
        );
        const narration = { source: n.source, text: n.text, trace: n.trace ? rel(traceDirName('sampling'), n.trace) : null };
        const text = [recovery ? `Recovery: ${recovery.message}\n` : '', n.source === 'sampling' ? `${n.text}\n\n--- Facts ---\n${fallback}` : fallback].join('');
        return success(text, { ...facts, narration, recovery });
      }),
  );
}
