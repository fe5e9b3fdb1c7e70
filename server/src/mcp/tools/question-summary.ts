import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolContext } from '../context.js';
import { registerTool } from './lazy-schemas.js';
import { guarded, success } from './call-result.js';

const questionSummaryInput = () => ({
  limit: z.number().int().min(1).optional().describe('Only the most recent N entries (still oldest first). Must be >= 1.'),
});

const questionSummaryOutput = () => ({
  summary: z.string().describe('A YAML document with every entry, oldest first.'),
  count: z.number().int().describe('Entries in this summary.'),
  total: z.number().int().describe('Question files stored in the workspace.'),
  skipped: z.array(z.object({ file: z.string(), reason: z.string() })).describe('Corrupted or unreadable question files that were skipped.'),
});

export function registerQuestionSummaryTool(mcp: McpServer, ctx: ToolContext): void {
  registerTool(
    mcp,
    'question_summary',
    {
      title: 'Summarise answered questions',
      description:
        'Return every question answered through question_ask (stored in .copilot-state/questions/) as one YAML document, oldest first. ' +
        'With `limit`, only the most recent N. Corrupted files are skipped and listed.',
      inputSchema: questionSummaryInput,
      outputSchema: questionSummaryOutput,
      annotations: { title: 'Question history', readOnlyHint: true, openWorldHint: false },
    },
    async ({ limit }) =>
      guarded(async () => {
        const { summarizeQuestions } = await import('../../io/questions.js');
        const root = await ctx.root();
        const s = await summarizeQuestions(root, limit === undefined ? {} : { limit });
        const note = s.skipped.length ? `\n# Skipped ${s.skipped.length} unreadable file(s): ${s.skipped.map((k) => `${k.file} (${k.reason})`).join('; ')}` : '';
        return success(s.summary + note, { summary: s.summary, count: s.count, total: s.total, skipped: s.skipped });
      }),
  );
}
