/**
 * The `onboard_repository` prompt: the whole flow as a script an agent can follow, with the
 * two rules that keep the human in control (no tool argument approves; a refusal is not
 * retried blindly). Tailored to what the connected client declared.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolContext } from './context.js';
import { clientCanElicit, clientIdentity } from './elicit.js';

const ONBOARD_PROMPT = 'onboard_repository';

function onboardingScript(o: { canElicit: boolean; canSample: boolean; clientName: string; focus?: string | undefined }): string {
  const ask = o.canElicit
    ? 'ask the human with `question_ask` (one short question per section, e.g. "Section \\"Testing\\" has no clear scope. Which files should it apply to (globs), or keep it repository-wide?"). Never ask for secrets.'
    : `ask the human in the chat (\`question_ask\` is not available: ${o.clientName} did not declare MCP elicitation).`;
  const askLeftover = o.canElicit ? 'ask the human about each suggestion with `question_ask`' : 'ask the human about each suggestion in the chat';
  const lines = [
    'Onboard this repository\'s GitHub Copilot instructions with the copilot-onboarding tools: split a monolithic `.github/copilot-instructions.md` into path-specific `.github/instructions/<slug>.instructions.md` files, with the human deciding at every gate.',
    ...(o.focus ? ['', `The human's focus for this run: ${o.focus}`] : []),
    '',
    'Rules (do not skip):',
    '- No tool argument can approve, confirm or migrate. Approval exists only when the human accepts the form that `onboarding_approve`, `onboarding_migrate` and `onboarding_rollback` show through MCP elicitation. Never claim that the human approved; never try to work around a gate.',
    '- A refusal (`isError: true`: declined, cancelled, timeout, unsupported client, stale plan, busy) is an answer, not a glitch. Read its code and "next" step, tell the human what happened, and do NOT retry the same call blindly. Call it again only when the human asks for it or the reason was fixed.',
    '- Every form and every narration leaves a trace in `.copilot-state/`; nothing you write is an approval.',
    ...(o.canElicit
      ? []
      : [`- ${o.clientName} did not declare MCP elicitation, so approve, migrate and rollback will refuse in this client. You can still analyze and propose; an operator can roll back with \`copilot-onboarding rollback\` in a terminal. Say so to the human instead of retrying.`]),
    '',
    'Steps:',
    '1. `onboarding_status` — see where the workspace stands (current plan, approval, last migration, pending recovery) and which capabilities this client has. If a migration is already in place, ask the human whether they want to keep it before going further.',
    `2. \`onboarding_analyze\` — find the instruction sources, the pattern (clean, structured, unstructured, messy, migrated), the sections and the problems.${o.canSample ? '' : ' (This client has no MCP sampling; the narration is the deterministic text, which is fine.)'} Summarise the problems for the human.`,
    '3. `onboarding_propose` (no overrides) — a first plan; it changes no instruction file. For each section it says where it goes, its `applyTo` globs and the evidence.',
    `4. For each section whose scope is uncertain — kept repository-wide for lack of evidence, thin or conflicting evidence, or globs that look too wide or too narrow — ${ask}`,
    `   The plan's \`leftover\` says how many characters stay in the repository-wide file (attached to every request; propose's \`loads\` gives the characters attached per file before and after) and suggests up to three candidate scopes, with their evidence, for each large section kept there: ${askLeftover} (offer its candidates and "keep repository-wide") and apply the answers with \`overrides\`, so low-confidence scopes are decided by a person, not guessed. Its \`alternatives\` list large sections it writes to path-specific files whose heading or language gives another scope (offer their scope now and the others) in the same way.`,
    `   When propose's \`sharedRules.ask\` is true (rules written both in Copilot's files and in AGENTS.md, CLAUDE.md or GEMINI.md), ${o.canElicit ? 'ask the human `sharedRules.question` word for word with `question_ask`; the next propose reads the saved answer as the override' : 'ask the human `sharedRules.question` in the chat and pass the answer as the override it names (`sharedRules.answers`)'}. Never choose for them.`,
    '5. `onboarding_propose` with `overrides` built from the answers: `{section: "<id or heading>", applyTo: "glob,glob"}` (a part the `leftover` lists, inside a section the plan keeps whole, may be named too: that section is cut into its parts), `{section, keepRepoWide: true}` or `{section, destination: "<slug>"}`; add `excludeAgent: "code-review"` or `"coding-agent"` when the human wants that Copilot agent to skip the section\'s file. Repeat steps 4–5 until the human has no more changes.',
    '6. Show the plan to the human: plan id and SHA-256 prefix, every file to create / modify / delete with its `applyTo`, the problems and the risk. The full plan is also readable as the resource `copilot-onboarding://plan/current`.',
    '7. `onboarding_approve` — the human approves (or not) in the form the client shows. If it is refused, stop and ask what to change.',
    '8. `onboarding_migrate` — the human confirms again; a verified tar.gz backup is made before any write and the result is checked on disk (lossless). Report the files written and the backup location.',
    '9. Tell the human how to undo it: `onboarding_rollback` (asks for confirmation through a form; lists files edited since the migration) or, from a terminal, `copilot-onboarding rollback --workspace <dir>`. `copilot-onboarding traces verify` checks the audit trail.',
  ];
  return lines.join('\n');
}

export function registerPrompts(mcp: McpServer, _ctx: ToolContext): void {
  mcp.registerPrompt(
    ONBOARD_PROMPT,
    {
      title: 'Onboard repository (Copilot instructions)',
      description:
        'Walk through status → analyze → ask about uncertain scopes → propose with overrides → approve → migrate → how to roll back. The human approves every step through elicitation forms.',
      argsSchema: {
        focus: z.string().max(2000).optional().describe('Anything the human wants this run to pay attention to (optional).'),
      },
    },
    ({ focus }): GetPromptResult => {
      const text = onboardingScript({
        canElicit: clientCanElicit(mcp.server),
        canSample: Boolean(mcp.server.getClientCapabilities()?.sampling),
        clientName: clientIdentity(mcp.server).name,
        focus,
      });
      return {
        description: 'Onboard this repository\'s Copilot instructions with the human in control.',
        messages: [{ role: 'user', content: { type: 'text', text } }],
      };
    },
  );
}
