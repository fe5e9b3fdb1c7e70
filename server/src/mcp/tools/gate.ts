/**
 * What the three gates (approve, migrate, rollback) share around their own checks, in one
 * place: the capability check comes first, and every refusal before a form is traced.
 *
 * A client that cannot show a form is refused before anything else is looked at (plan,
 * approval, migration, lock, recovery): otherwise it would be told to "approve first" by a
 * gate it can never pass, a loop. Every other refusal before a form (no plan, not approved,
 * stale plan, busy, no migration, …) leaves a `refused` trace with its error code, so an agent
 * that keeps calling a gate is visible to an auditor. Every refusal carries a complete
 * structuredContent, because clients validate it against the output schema even on errors.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, OnboardingError } from '../../core/errors.js';
import { sanitize } from '../../core/sanitize.js';
import { traceRefusal } from '../../app/gate-trace.js';
import type { ElicitationAction } from '../../schemas/trace.js';
import { clientCanElicit, clientIdentity, elicit, type ElicitOutcome, type ElicitSpec } from '../elicit.js';
import type { ToolContext } from '../context.js';
import type { ToolExtra } from '../progress.js';
import { guarded, refusal, withRecovery } from './call-result.js';

/** Where the step can be done instead, for a client that cannot show forms. */
const FORM_CLIENTS = 'VS Code (GitHub Copilot), Copilot CLI, Claude Code, Cursor or the MCP Inspector (setup in docs/clients.md)';

export interface GateDef {
  action: Exclude<ElicitationAction, 'question' | 'recover'>;
  /** The tool's name, for "ask again with …". */
  tool: string;
  /** The step, as a sentence subject: "Approval", "Migration", "Rollback". */
  step: string;
  /** What the call was about (its arguments); traced with every refusal. */
  subject: Record<string, unknown>;
  /** A way to do the step without a form client, if there is one. */
  alternative?: string;
  /** A complete structuredContent for a refusal with this outcome and trace path. */
  refused(outcome: string, trace: string, about: Record<string, unknown>): Record<string, unknown>;
}

export interface GateRun {
  root: string;
  /** Put the form to the human (traced by elicit; the gate timeout and clock by default). Refusals thrown after this are not traced again. */
  ask(spec: Omit<ElicitSpec, 'timeoutMs' | 'heartbeatMs'>): Promise<ElicitOutcome>;
  /** Add to what refusals are traced about (e.g. the resolved plan id). */
  about(fields: Record<string, unknown>): void;
}

export async function runGate(mcp: McpServer, ctx: ToolContext, extra: ToolExtra, def: GateDef, body: (g: GateRun) => Promise<CallToolResult>): Promise<CallToolResult> {
  return guarded(async () => {
    const server = mcp.server;
    const client = clientIdentity(server);
    const about: Record<string, unknown> = { ...def.subject };
    const root = await ctx.root();
    const store = await ctx.elicitationTraces(root);
    const traceIt = (outcome: 'unsupported' | 'refused', code: string, message: string) =>
      traceRefusal(store, { channel: 'mcp', action: def.action, client, outcome, code, message, subject: about, atMs: ctx.now() });
    if (!clientCanElicit(server)) {
      const who = `${sanitize(client.name, 80)} ${sanitize(client.version, 40)}`;
      const message =
        `${def.step} needs a client that can show MCP elicitation forms; ${who} did not declare the form elicitation capability, ` +
        'so the human cannot be asked. Nothing was changed.';
      const next = `Do this step in ${FORM_CLIENTS}${def.alternative ? `, or ${def.alternative}` : ''}.`;
      const trace = await traceIt('unsupported', ErrorCode.ELICITATION_UNSUPPORTED, message);
      return refusal({ code: ErrorCode.ELICITATION_UNSUPPORTED, message, next }, def.refused('unsupported', trace.path, about));
    }
    let asked = false;
    let recovery: { message: string } | null = null;
    try {
      const { recover } = await import('../../app/recover.js');
      recovery = await recover(root);
      const result = await body({
        root,
        ask: (spec) => {
          asked = true;
          return elicit(server, extra, { timeoutMs: ctx.config.approvalTimeoutMs, heartbeatMs: ctx.config.heartbeatMs, now: () => ctx.now(), ...spec }, store);
        },
        about: (fields) => Object.assign(about, fields),
      });
      return withRecovery(result, recovery);
    } catch (e) {
      if (asked) throw e;
      const err =
        e instanceof OnboardingError
          ? e
          : new OnboardingError(ErrorCode.INTERNAL, `Unexpected error: ${e instanceof Error ? e.message : String(e)}`, { next: 'Run onboarding_status to see the workspace state.' });
      let tracePath = '';
      let untraced = '';
      try {
        tracePath = (await traceIt('refused', err.code, err.message)).path;
      } catch (te) {
        untraced = ` (This refusal could not be traced: ${te instanceof Error ? te.message : String(te)})`;
      }
      return withRecovery(refusal({ code: err.code, message: `${err.message}${untraced}`, next: err.next }, def.refused('refused', tracePath, about)), recovery);
    }
  });
}

/**
 * The refusal of a gate whose form did not approve, saying what the human answered; null when
 * the gate was approved (and the call was not cancelled meanwhile). A timeout or a cancel is
 * not a "no": its next step is to ask again.
 */
export function gateRefusal(
  res: { outcome: string; reason: string | null },
  gate: { tool: string; notApproved: string; next: string; aborted?: boolean },
  structured: Record<string, unknown>,
): CallToolResult | null {
  if (res.outcome === 'approved' && !gate.aborted) return null;
  const outcome = res.outcome === 'approved' ? 'cancelled' : res.outcome;
  const next = outcome === 'declined' ? gate.next : `Ask again with ${gate.tool} when the human is ready to answer.`;
  return refusal({ code: ErrorCode.NOT_CONFIRMED, message: `${gate.notApproved} (${outcome}): ${res.reason ?? 'the call was cancelled'}`.trim(), next }, structured);
}
