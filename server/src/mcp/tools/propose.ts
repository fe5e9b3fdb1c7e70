import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AnyOverrideSchema } from '../../schemas/override.js';
import type { ToolContext } from '../context.js';
import { registerTool } from './lazy-schemas.js';
import { guarded, success } from './call-result.js';
import { rel, traceDirName } from '../../io/layout.js';
import { PLAN_VIEW_TOOL_META, planViewShape } from '../plan-view.js';
import { alternativesShape, leftoverShape, loadsShape, narrationShape, problemShape, recoveryShape, truncatedShape } from './schemas.js';

const proposeInput = () => ({
  overrides: z
    .array(AnyOverrideSchema)
    .max(1000)
    .optional()
    .describe(
      "Per-section changes after asking the human (e.g. with question_ask): {section: id or heading (also a part the plan's leftover lists: naming it cuts the section the plan kept whole into its parts), keepRepoWide?, applyTo?: 'glob,glob' or [globs], destination?: slug, excludeAgent?: 'code-review' | 'coding-agent' (that Copilot agent skips the section's path-specific file)}; or, when the human chooses AGENTS.md to hold the shared rules, {file: 'CLAUDE.md' | 'GEMINI.md', pointer: '@AGENTS.md' | '@.github/copilot-instructions.md'} (that file's byte-for-byte copies of the target's rules are replaced by its import of it); or the person's answer to the shared-rules question (result sharedRules), {sharedRules: 'AGENTS.md' | 'copilot' | 'keep'}, which is also read from the saved question_ask answer.",
    ),
  narrate: z.boolean().default(true).describe('Explain the plan through the client model (MCP sampling); the plan never depends on it.'),
  budgetChars: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Instruction characters Copilot may attach per file; the result warns when the plan leaves more (no limit by default).'),
});

const proposeOutput = () => ({
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
  problems: z.array(problemShape()),
  lossless: z.object({ ok: z.boolean(), coveredSources: z.array(z.string()) }),
  loads: loadsShape(),
  leftover: leftoverShape(),
  alternatives: alternativesShape(),
  agents: z
    .object({
      conversions: z.array(z.object({ source: z.string(), output: z.string(), applyTo: z.string().nullable(), why: z.string() })),
      kept: z.array(z.object({ path: z.string(), reason: z.string() })),
      splits: z
        .array(z.object({ source: z.string(), mode: z.enum(['move', 'copy']), outputs: z.array(z.object({ path: z.string(), applyTo: z.string().nullable() })), pointers: z.array(z.string()) }))
        .describe("Other agents' headed files split like Copilot's own: move = path-specific sections go to scoped files and the source imports each (pointers); copy = copied, the source stays"),
      pointers: z
        .array(z.object({ file: z.string(), pointer: z.string(), copies: z.number().int() }))
        .describe("Files whose byte-for-byte copies of another file's rules are replaced by an import of it (the person's shared-rules choice); the plan names every copy"),
      duplicates: z.object({ exact: z.number().int(), near: z.number().int(), loadedTwice: z.number().int() }),
      nearDuplicates: z
        .object({
          total: z.number().int(),
          listed: z.array(z.object({ similarity: z.number(), excerpt: z.string(), occurrences: z.array(z.object({ path: z.string(), startLine: z.number().int(), endLine: z.number().int() })) })),
        })
        .describe('Near duplicates (similar word sets, not identical), with line ranges: never rewritten by the plan; a person decides which wording to keep'),
      nothingToMove: z.string().nullable(),
    })
    .nullable()
    .describe("Other agents' files: rules copied into Copilot files (the originals stay), files kept as they are and why, and why nothing needs to move when nothing does"),
  sharedRules: z
    .object({
      ask: z.boolean().describe('true: ask the human this question with question_ask, word for word, before approving'),
      choice: z.enum(['AGENTS.md', 'copilot', 'keep']).nullable(),
      from: z.string().nullable().describe("where the choice came from: 'override', or the saved question file"),
      ignored: z
        .object({ count: z.number().int(), listed: z.array(z.object({ file: z.string(), why: z.string() })) })
        .describe("saved answers to the question that were not used, because no authenticated question_ask trace of this workspace records them: how many, the first few and why"),
      duplicates: z.number().int(),
      actionable: z.number().int().describe('of those, the rules a choice can act on: a copy in CLAUDE.md or GEMINI.md (which can import), another in AGENTS.md or Copilot\'s files'),
      question: z.string(),
      answers: z.array(z.object({ answer: z.string(), override: z.object({ sharedRules: z.enum(['AGENTS.md', 'copilot', 'keep']) }), means: z.string() })),
      how: z.string(),
      notes: z.array(z.string()),
    })
    .nullable()
    .describe("One source of truth for rules shared by Copilot's files and AGENTS.md / CLAUDE.md / GEMINI.md: the question to ask, or the person's choice and what it did"),
  narration: narrationShape(),
  recovery: recoveryShape(),
  truncated: truncatedShape(),
  planView: planViewShape(),
});

export function registerProposeTool(mcp: McpServer, ctx: ToolContext): void {
  registerTool(
    mcp,
    'onboarding_propose',
    {
      title: 'Propose a migration plan',
      description:
        'Build a deterministic, lossless plan that moves sections with a confident path scope into .github/instructions/<slug>.instructions.md ' +
        '(applyTo front matter) and keeps the rest in .github/copilot-instructions.md. Stores the plan in .copilot-state/plans/. Changes no instruction file. ' +
        "When the plan's leftover suggests scopes for large sections kept repository-wide, or its alternatives other scopes for large sections it writes to path-specific files, ask the human about them with question_ask and call again with overrides, so low-confidence scopes are decided by a person, not guessed.",
      inputSchema: proposeInput,
      outputSchema: proposeOutput,
      annotations: { title: 'Propose plan', readOnlyHint: true, openWorldHint: false },
      _meta: PLAN_VIEW_TOOL_META,
    },
    async ({ overrides, narrate: wantNarration, budgetChars }, extra) =>
      guarded(async () => {
        // Loaded on first call, not at the server's start (docs/architecture.md, "What loads when").
        const [{ narrate }, { propose }, { recover }, { planFacts, planText, proposeResult }, { figureFor }, { planViewData }] = await Promise.all([
          import('../narrate.js'),
          import('../../app/propose.js'),
          import('../../app/recover.js'),
          import('../../app/facts.js'),
          import('../../app/loads.js'),
          import('../../app/plan-view.js'),
        ]);
        const root = await ctx.root();
        const recovery = await recover(root);
        const { plan, planFile, snapshot, analysis, sharedRules } = await propose(root, overrides);
        const facts = planFacts(plan, planFile, figureFor(snapshot, plan), budgetChars, { sharedRules, duplicates: analysis.agents?.duplicates ?? [] });
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
          await ctx.samplingTraces(root),
        );
        const narration = { source: n.source, text: n.text, trace: n.trace ? rel(traceDirName('sampling'), n.trace) : null };
        const text = [recovery ? `Recovery: ${recovery.message}\n` : '', n.source === 'sampling' ? `${n.text}\n\n--- Facts ---\n${fallback}` : n.text].join('');
        return success(text, { ...proposeResult(facts, narration, recovery), planView: planViewData(plan, snapshot) });
      }),
  );
}
