import { z } from 'zod';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { questionSchema } from '../../core/gates.js';
import { ErrorCode } from '../../core/errors.js';
import { elicit } from '../elicit.js';
import type { ToolContext } from '../context.js';
import { registerTool } from './lazy-schemas.js';
import { REFUSED, guarded, refusal, success } from './call-result.js';
import { thousands } from '../../core/sanitize.js';

const QUESTION_MAX_CHARS = 10_000;
const ANSWER_MAX_CHARS = 100_000;

const questionAskInput = () => ({
  question: z
    .string()
    .min(1)
    .max(QUESTION_MAX_CHARS)
    .describe(
      'The question to show the human, in plain words. It is shown as plain text (Markdown and HTML appear literally, control characters escaped); at most 4,000 characters once escaped. Never ask for passwords, API keys, tokens or other secrets.',
    ),
});

const questionAskOutput = () => ({
  answer: z.string().nullable().describe("The human's answer, verbatim (null when there was no answer)."),
  saved_to: z.string().nullable().describe('Workspace-relative path of the YAML file that stores the question and answer (null when nothing was saved).'),
  trace: z.string().describe('Workspace-relative path of the elicitation trace.'),
  outcome: z.string().describe('answered | declined | cancelled | timeout | unsupported | error'),
  error: z.object({ code: z.string(), message: z.string(), next: z.string().nullable() }).optional(),
});

/** Listed only for clients that declared elicitation (enabled in oninitialized; see server.ts). */
export function registerQuestionAskTool(mcp: McpServer, ctx: ToolContext): RegisteredTool {
  return registerTool(
    mcp,
    'question_ask',
    {
      title: 'Ask the human a question',
      description:
        'Ask the human a free-text question through an MCP elicitation form and wait for the answer (no timeout by default). ' +
        'The question and answer are saved as YAML in .copilot-state/questions/ and traced. Use it to settle uncertain scopes ' +
        'before onboarding_propose. Must not be used to ask for secrets (passwords, API keys, tokens): the answer goes back to the model.',
      inputSchema: questionAskInput,
      outputSchema: questionAskOutput,
      annotations: { title: 'Ask the human', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ question }, extra) =>
      guarded(async () => {
        const [{ FORM_MAX_CHARS, questionForm }, { saveQuestion }] = await Promise.all([import('../../core/form-render.js'), import('../../io/questions.js')]);
        const root = await ctx.root();
        const message = questionForm(question);
        if (message === null) {
          return refusal(
            {
              code: ErrorCode.INVALID_INPUT,
              message: `The question is longer than a form shows (${thousands(FORM_MAX_CHARS)} characters once made safe to show); nobody was asked.`,
              next: 'Ask a shorter question, or split it into several.',
            },
            { ...REFUSED.questionAsk },
          );
        }
        const store = await ctx.elicitationTraces(root);
        const res = await elicit(
          mcp.server,
          extra,
          {
            action: 'question',
            message,
            requestedSchema: questionSchema({ name: 'answer', title: 'Your answer', description: 'Type your answer. Do not enter secrets.', maxLength: ANSWER_MAX_CHARS }),
            subject: { question },
            mode: { kind: 'question', answerField: 'answer', maxLength: ANSWER_MAX_CHARS },
            timeoutMs: ctx.config.questionTimeoutMs,
            heartbeatMs: ctx.config.heartbeatMs,
            now: () => ctx.now(),
          },
          store,
        );
        if (res.outcome === 'unsupported') {
          return refusal(
            {
              code: ErrorCode.ELICITATION_UNSUPPORTED,
              message: `question_ask needs a client with MCP elicitation; ${res.client.name} did not declare it.`,
              next: 'Ask the human in the chat instead.',
            },
            { answer: null, saved_to: null, outcome: res.outcome, trace: res.trace.path },
          );
        }
        if (res.outcome !== 'answered' || res.answer === null) {
          return refusal(
            { code: ErrorCode.NOT_ANSWERED, message: `No answer: ${res.reason ?? res.outcome} No question file was written.`, next: 'Do not assume an answer; ask again later or continue without it.' },
            { answer: null, saved_to: null, outcome: res.outcome, trace: res.trace.path },
          );
        }
        // A late answer to a cancelled call is dropped by the SDK anyway; do not persist it.
        if (extra.signal.aborted) {
          return refusal({ code: ErrorCode.NOT_ANSWERED, message: 'The call was cancelled before the answer arrived; it was not saved.' }, { answer: null, saved_to: null, outcome: 'cancelled', trace: res.trace.path });
        }
        const saved = await saveQuestion(root, {
          timestamp: new Date().toISOString(),
          question,
          answer: res.answer,
          trace: `elicitation-traces/${res.trace.file}`,
        });
        return success(`The human answered: ${res.answer}\n(saved to ${saved})`, { answer: res.answer, saved_to: saved, trace: res.trace.path, outcome: res.outcome });
      }, REFUSED.questionAsk),
  );
}
