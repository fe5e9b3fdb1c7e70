/**
 * The elicitation core: the one path by which the server asks a human anything.
 * Every gate (approve, migrate, rollback) and question_ask goes through `elicit()`:
 *   capability check -> ask (own timeout, cancellation, heartbeats) -> normalise -> trace.
 * Every outcome leaves a trace; if the trace cannot be written the caller gets an
 * OnboardingError(TRACE_WRITE_FAILED) and must fail closed.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode as McpErrorCode, McpError, type ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { sdkTimeout } from '../runtime/config.js';
import { decide, type RequestedSchema, type ResponseMode } from '../core/gates.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import type { ElicitationAction, ElicitationOutcome, ElicitationTrace } from '../schemas/trace.js';
import { TraceStore } from '../io/traces.js';
import { rel, traceDirName } from '../io/layout.js';
import { Progress, type ToolExtra } from './progress.js';

/** Raw result, validated by us (not by the SDK) so the trace records exactly what the client sent. */
const RawElicitResultSchema = z.object({ action: z.unknown(), content: z.unknown().optional() }).passthrough();

/** A decline or cancel faster than this is flagged as possibly automatic (never acted on). */
const SUSPECT_AUTOMATIC_MS = 100;
/** Responses larger than this are not stored verbatim in the trace. */
const MAX_TRACED_RESPONSE_CHARS = 64 * 1024;

export interface ClientIdentity {
  name: string;
  version: string;
}

export function clientIdentity(server: Server): ClientIdentity {
  const v = server.getClientVersion();
  return { name: v?.name ?? 'unknown client', version: v?.version ?? 'unknown' };
}

export function clientCanElicit(server: Server): boolean {
  // The SDK rewrites `elicitation: {}` to `{form: {}}` while parsing initialize (MCP-NOTES §2.4).
  return Boolean(server.getClientCapabilities()?.elicitation?.form);
}

export interface ElicitSpec {
  action: ElicitationAction;
  message: string;
  requestedSchema: RequestedSchema;
  subject: Record<string, unknown>;
  mode: ResponseMode;
  /** 0 = no timeout. */
  timeoutMs: number;
  heartbeatMs: number;
}

export interface ElicitOutcome {
  outcome: ElicitationOutcome;
  /** The accepted form content (only for approved/answered). */
  content: Record<string, unknown> | null;
  answer: string | null;
  /** Why the request did not approve/answer; null when it did. */
  reason: string | null;
  client: ClientIdentity;
  trace: { file: string; path: string; seq: number; sha256: string };
  durationMs: number;
}

export async function elicit(server: Server, extra: ToolExtra, spec: ElicitSpec, store: TraceStore<'elicitation'>): Promise<ElicitOutcome> {
  const client = clientIdentity(server);
  const started = Date.now();
  const timestamp = new Date(started).toISOString();

  if (!clientCanElicit(server)) {
    const reason = `${client.name} did not declare the MCP elicitation capability (form mode), so it cannot show the confirmation form.`;
    return record(store, spec, { outcome: 'unsupported', response: null, error: reason, reason, client, timestamp, started, content: null, answer: null });
  }

  const progress = new Progress(extra);
  const stopHeartbeat = progress.heartbeat(spec.heartbeatMs, 'Waiting for the human to answer the form…');
  let response: Record<string, unknown> | null = null;
  let outcome: ElicitationOutcome;
  let reason: string | null;
  let error: string | null = null;
  let answer: string | null = null;
  try {
    const raw = await extra.sendRequest(
      { method: 'elicitation/create', params: { mode: 'form', message: spec.message, requestedSchema: spec.requestedSchema as ElicitRequestFormParams['requestedSchema'] } },
      RawElicitResultSchema,
      { timeout: sdkTimeout(spec.timeoutMs), signal: extra.signal },
    );
    response = raw as Record<string, unknown>;
    const d = decide(spec.mode, raw as { action?: unknown; content?: unknown });
    outcome = d.outcome;
    reason = d.reason;
    answer = d.answer ?? null;
    if (outcome === 'error') error = d.reason;
  } catch (e) {
    ({ outcome, reason, error } = classifyFailure(e, extra, spec.timeoutMs));
  } finally {
    stopHeartbeat();
  }
  const content =
    (outcome === 'approved' || outcome === 'answered') && response && typeof response.content === 'object' ? (response.content as Record<string, unknown>) : null;
  return record(store, spec, { outcome, response, error, reason, client, timestamp, started, content, answer });
}

function classifyFailure(e: unknown, extra: ToolExtra, timeoutMs: number): { outcome: ElicitationOutcome; reason: string; error: string } {
  const msg = e instanceof Error ? e.message : String(e);
  if (extra.signal.aborted) {
    return { outcome: 'cancelled', reason: 'The tool call was cancelled while the form was open.', error: `cancelled: ${msg}` };
  }
  if (e instanceof McpError && e.code === McpErrorCode.RequestTimeout) {
    return { outcome: 'timeout', reason: `No answer within ${Math.round(timeoutMs / 1000)} s; a timeout counts as a cancel.`, error: msg };
  }
  if (e instanceof McpError && e.code === McpErrorCode.ConnectionClosed) {
    return { outcome: 'cancelled', reason: 'The client disconnected while the form was open.', error: msg };
  }
  return { outcome: 'error', reason: `The elicitation failed: ${msg}`, error: msg };
}

async function record(
  store: TraceStore<'elicitation'>,
  spec: ElicitSpec,
  r: {
    outcome: ElicitationOutcome;
    response: Record<string, unknown> | null;
    error: string | null;
    reason: string | null;
    client: ClientIdentity;
    timestamp: string;
    started: number;
    content: Record<string, unknown> | null;
    answer: string | null;
  },
): Promise<ElicitOutcome> {
  const durationMs = Date.now() - r.started;
  const unsealed: Omit<ElicitationTrace, 'seq' | 'prev_sha256' | 'sha256'> = {
    format: 'copilot-onboarding/elicitation-trace@1',
    timestamp: r.timestamp,
    action: spec.action,
    channel: 'mcp',
    client: r.client,
    message: spec.message,
    schema: spec.requestedSchema,
    response: boundResponse(r.response),
    outcome: r.outcome,
    subject: spec.subject,
    duration_ms: durationMs,
    error: r.error,
    ...((r.outcome === 'declined' || r.outcome === 'cancelled') && r.response && durationMs < SUSPECT_AUTOMATIC_MS ? { suspected_automatic: true } : {}),
  };
  const written = await appendOrFailClosed(store, unsealed);
  return { outcome: r.outcome, content: r.content, answer: r.answer, reason: r.reason, client: r.client, trace: written, durationMs };
}

/** Append a trace; failure to write is an OnboardingError so gates fail closed. */
export async function appendOrFailClosed(
  store: TraceStore<'elicitation'>,
  unsealed: Omit<ElicitationTrace, 'seq' | 'prev_sha256' | 'sha256'>,
): Promise<{ file: string; path: string; seq: number; sha256: string }> {
  try {
    const { record, file } = await store.append(unsealed, unsealed.action);
    return { file, path: rel(traceDirName('elicitation'), file), seq: record.seq, sha256: record.sha256 };
  } catch (e) {
    throw new OnboardingError(
      ErrorCode.TRACE_WRITE_FAILED,
      `The elicitation trace could not be written (${(e as Error).message}). Without a trace nothing is approved or changed.`,
      { next: 'Check that .copilot-state/elicitation-traces/ is writable, then try again.', cause: e },
    );
  }
}

function boundResponse(resp: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!resp) return null;
  const text = JSON.stringify(resp);
  if (text.length <= MAX_TRACED_RESPONSE_CHARS) return resp;
  return { action: resp.action, truncated: true, size_chars: text.length, head: text.slice(0, 1024) };
}
