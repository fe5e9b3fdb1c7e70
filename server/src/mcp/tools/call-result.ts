/**
 * The only place CallToolResults are built.
 * Security: every text goes through core/sanitize line by line (file names, headings, globs,
 * answers and error messages come from the workspace or the agent), so no control, escape,
 * bidi or separator character reaches the agent's transcript, where a person reads it too.
 * structuredContent stays the data as it is (JSON carries it escaped).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, OnboardingError } from '../../core/errors.js';
import { sanitizeLines } from '../../core/sanitize.js';

export function success<T extends Record<string, unknown>>(text: string, structured: T, extraText: string[] = []): CallToolResult {
  return {
    content: [{ type: 'text', text: sanitizeLines(text) }, ...extraText.map((t) => ({ type: 'text' as const, text: sanitizeLines(t) }))],
    structuredContent: structured,
  };
}

/**
 * A refusal or failure: `isError: true`, saying why, that nothing was changed (unless
 * `nothingChanged: false`), and what to do next.
 *
 * `structured` must be a complete value of the tool's outputSchema (plus `error`): clients
 * validate structuredContent against the schema even on errors (MCP Inspector, and the SDK
 * Client once it has listed tools). Without it the result carries no structuredContent.
 */
export function refusal(
  err: { code: string; message: string; next?: string | undefined },
  structured?: Record<string, unknown>,
  opts: { nothingChanged?: boolean } = {},
): CallToolResult {
  const parts = [err.message.trim()];
  if (opts.nothingChanged !== false && !/nothing (was|has been) changed/i.test(err.message)) parts.push('Nothing was changed.');
  if (err.next) parts.push(err.next.trim());
  return {
    isError: true,
    content: [{ type: 'text', text: sanitizeLines(`${err.code}: ${parts.join(' ')}`) }],
    ...(structured ? { structuredContent: { ...structured, error: { code: err.code, message: err.message, next: err.next ?? null } } } : {}),
  };
}

/**
 * Run a tool body; OnboardingErrors become refusals, anything else an INTERNAL refusal.
 * `refused` is the tool's structured result when nothing happened (every field of its output
 * schema): tools whose output schema has an `error` field pass it, so their refusals carry
 * structuredContent too.
 */
export async function guarded(fn: () => Promise<CallToolResult>, refused?: Record<string, unknown>): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof OnboardingError) return refusal({ code: e.code, message: e.message, next: e.next }, refused);
    const msg = e instanceof Error ? e.message : String(e);
    return refusal({ code: ErrorCode.INTERNAL, message: `Unexpected error: ${msg}`, next: 'Run onboarding_status to see the workspace state.' }, refused);
  }
}

/** The structured results of gate tools when they refused before doing anything (no plan, no migration known). */
export const REFUSED = {
  approve: { approved: false, planId: '', planSha256: '', expiresAt: null, comment: null, outcome: 'refused', trace: '' },
  migrate: { migrated: false, planId: '', migrationId: null, written: [], backup: null, verified: false, outcome: 'refused', trace: null },
  rollback: { rolledBack: false, migrationId: null, restored: [], removed: [], editedSinceMigration: [], outcome: 'refused', trace: null },
  questionAsk: { answer: null, saved_to: null, trace: '', outcome: 'error' },
} as const;

/** Prepend what recovery found (an interrupted migration undone, or finished) to a result. */
export function withRecovery(result: CallToolResult, recovery: { message: string } | null): CallToolResult {
  if (!recovery) return result;
  return { ...result, content: [{ type: 'text', text: sanitizeLines(`Recovery before this call: ${recovery.message}`) }, ...result.content] };
}
