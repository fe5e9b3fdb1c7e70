import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Analysis, RefusedSource, Snapshot } from '../../core/types.js';
import { narrate } from '../narrate.js';
import { updateState } from '../../io/state.js';
import { snapshotAndAnalyze } from '../../app/propose.js';
import { recover } from '../../app/recover.js';
import type { ToolContext } from '../context.js';
import { guarded, success } from './result.js';
import { rel, traceDirName } from '../../io/layout.js';
import { narrationShape, problemShape, recoveryShape } from './schemas.js';

export const analyzeInput = {
  narrate: z.boolean().optional().describe('Explain the findings through the client model (MCP sampling). Default true; the facts never depend on it.'),
};

export const analyzeOutput = {
  workspace: z.string(),
  pattern: z.enum(['clean', 'structured', 'unstructured', 'messy', 'migrated']),
  sources: z.array(z.object({ path: z.string(), kind: z.string(), size: z.number().int(), sha256: z.string(), lines: z.number().int(), chars: z.number().int() })),
  refused: z.array(z.object({ path: z.string(), kind: z.string(), reason: z.string() })),
  sections: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      kind: z.string(),
      level: z.number().int(),
      proposed: z.boolean(),
      startLine: z.number().int(),
      endLine: z.number().int(),
      bytes: z.number().int(),
    }),
  ),
  problems: z.array(problemShape),
  existingInstructions: z.array(z.object({ path: z.string(), applyTo: z.string().nullable(), applyToShape: z.string(), description: z.string().nullable() })),
  otherAgentFiles: z.array(z.string()),
  narration: narrationShape,
  recovery: recoveryShape,
};

export function analysisFacts(workspace: string, snapshot: Snapshot, a: Analysis) {
  return {
    workspace,
    pattern: a.pattern,
    sources: a.sources,
    refused: snapshot.refused.map((r: RefusedSource) => ({ path: r.path, kind: r.kind, reason: r.reason })),
    sections: a.sections.map((s) => ({
      id: s.id,
      title: s.title,
      kind: s.kind,
      level: s.level,
      proposed: s.proposed,
      startLine: s.startLine,
      endLine: s.endLine,
      bytes: s.ranges.reduce((n, r) => n + (r.end - r.start), 0),
    })),
    problems: a.problems,
    existingInstructions: a.existingInstructions,
    otherAgentFiles: a.otherAgentFiles,
  };
}

export function analysisText(f: ReturnType<typeof analysisFacts>): string {
  const lines = [`Pattern: ${f.pattern}.`];
  for (const s of f.sources) lines.push(`Source ${s.path} (${s.kind}): ${s.chars.toLocaleString('en-US')} characters, ${s.lines} lines.`);
  for (const r of f.refused) lines.push(`Refused ${r.path}: ${r.reason}.`);
  if (f.sections.length) {
    lines.push(`${f.sections.length} section(s):`);
    for (const s of f.sections.slice(0, 60)) lines.push(`  ${s.id}  "${s.title}"  lines ${s.startLine}-${s.endLine}${s.proposed ? '  (proposed topic group)' : ''}`);
    if (f.sections.length > 60) lines.push(`  … and ${f.sections.length - 60} more`);
  }
  lines.push(f.problems.length ? `${f.problems.length} problem(s):` : 'No problems found.');
  for (const p of f.problems.slice(0, 30)) lines.push(`  ${p.severity} ${p.code}: ${p.message}${p.lines.length ? ` (line ${p.lines.slice(0, 6).join(', ')})` : ''}`);
  if (f.otherAgentFiles.length) lines.push(`Other agents' files found (reported only): ${f.otherAgentFiles.join(', ')}.`);
  lines.push('Next: onboarding_propose builds a plan (it changes no instruction file).');
  return lines.join('\n');
}

export function registerAnalyzeTool(mcp: McpServer, ctx: ToolContext): void {
  mcp.registerTool(
    'onboarding_analyze',
    {
      title: 'Analyze Copilot instructions',
      description:
        "Find the workspace's instruction sources (.github/copilot-instructions.md, .github/instructions/*.instructions.md, and other agents' files), " +
        'classify the pattern (clean, structured, unstructured, messy, migrated), and list sections and problems with line numbers. Changes no instruction file.',
      inputSchema: analyzeInput,
      outputSchema: analyzeOutput,
      annotations: { title: 'Analyze instructions', readOnlyHint: true, openWorldHint: false },
    },
    async ({ narrate: wantNarration }, extra) =>
      guarded(async () => {
        const root = await ctx.root();
        const recovery = await recover(root);
        const { snapshot, analysis } = await snapshotAndAnalyze(root);
        await updateState(root, (s) => {
          if (s.status === 'new') s.status = 'analyzed';
          s.pattern = analysis.pattern;
        });
        const facts = analysisFacts(root, snapshot, analysis);
        const fallback = analysisText(facts);
        const n = await narrate(
          mcp.server,
          extra,
          { intent: 'analyze', facts: { ...facts, workspace: undefined, sections: facts.sections.slice(0, 40) }, fallback, timeoutMs: ctx.config.samplingTimeoutMs, enabled: wantNarration !== false },
          ctx.samplingTraces(root),
        );
        const narration = { source: n.source, text: n.text, trace: n.trace ? rel(traceDirName('sampling'), n.trace) : null };
        const texts = [recovery ? `Recovery: ${recovery.message}\n` : '', n.source === 'sampling' ? `${n.text}\n\n--- Facts ---\n${fallback}` : fallback].join('');
        return success(texts, { ...facts, narration, recovery });
      }),
  );
}
