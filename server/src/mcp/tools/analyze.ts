import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolContext } from '../context.js';
import { registerTool } from './lazy-schemas.js';
import { guarded, success } from './call-result.js';
import { rel, traceDirName } from '../../io/layout.js';
import { narrationShape, problemShape, recoveryShape, truncatedShape } from './schemas.js';

const analyzeInput = () => ({
  narrate: z.boolean().default(true).describe('Explain the findings through the client model (MCP sampling); the facts never depend on it.'),
});

const analyzeOutput = () => ({
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
  problems: z.array(problemShape()),
  existingInstructions: z.array(z.object({ path: z.string(), applyTo: z.string().nullable(), applyToShape: z.string(), description: z.string().nullable() })),
  otherAgentFiles: z.array(z.string()),
  inventory: z
    .array(
      z.object({
        path: z.string(),
        format: z.string().describe('copilot-repo, copilot-path, agents-md, agents-md-nested, claude-md, claude-md-nested, gemini-md, gemini-md-nested, cursor-rule, cursorrules, windsurf-rule, windsurfrules or clinerules'),
        agent: z.string(),
        size: z.number().int(),
        lines: z.number().int(),
        readBy: z.array(z.object({ surface: z.string(), when: z.string().nullable(), byDefault: z.boolean() })).describe('The Copilot surfaces that read this file (docs/agents.md gives the source of each)'),
        rule: z
          .object({ activation: z.enum(['always', 'glob', 'description', 'manual']), description: z.string().nullable(), globs: z.array(z.string()), problems: z.array(z.string()) })
          .nullable()
          .describe('How a Cursor or Windsurf rule comes into play'),
      }),
    )
    .describe("Every instruction source, Copilot's and other agents'"),
  agentPlan: z
    .array(z.object({ path: z.string(), action: z.enum(['convert', 'append', 'split', 'keep']), applyTo: z.string().nullable(), reason: z.string() }))
    .describe("What onboarding_propose does with each other agent's file: copy it into a Copilot file (the original stays), append an always-on rule to the repository-wide file, split its path-specific sections into scoped files (moved and imported back, or copied), or keep it, and why"),
  duplicates: z
    .array(
      z.object({
        kind: z.enum(['exact', 'near']),
        similarity: z.number(),
        excerpt: z.string(),
        occurrences: z.array(z.object({ path: z.string(), startLine: z.number().int(), endLine: z.number().int() })),
        loadedTwiceBy: z.array(z.string()).describe('Copilot surfaces that load two of these copies into one request, as shipped'),
      }),
    )
    .describe('Rules (paragraphs, list items, code blocks) found in more than one source'),
  narration: narrationShape(),
  recovery: recoveryShape(),
  truncated: truncatedShape(),
});

export function registerAnalyzeTool(mcp: McpServer, ctx: ToolContext): void {
  registerTool(
    mcp,
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
        // Loaded on first call, not at the server's start (docs/architecture.md, "What loads when").
        const [{ narrate }, { updateState }, { snapshotAndAnalyze }, { recover }, { analysisFacts, analysisText, analyzeResult }] = await Promise.all([
          import('../narrate.js'),
          import('../../io/state.js'),
          import('../../app/analyze.js'),
          import('../../app/recover.js'),
          import('../../app/facts.js'),
        ]);
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
          await ctx.samplingTraces(root),
        );
        const narration = { source: n.source, text: n.text, trace: n.trace ? rel(traceDirName('sampling'), n.trace) : null };
        const texts = [recovery ? `Recovery: ${recovery.message}\n` : '', n.source === 'sampling' ? `${n.text}\n\n--- Facts ---\n${fallback}` : n.text].join('');
        return success(texts, analyzeResult(facts, narration, recovery));
      }),
  );
}
