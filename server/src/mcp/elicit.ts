/**
 * The elicitation core: the one path by which the server asks a human anything.
 * Every gate (approve, migrate, rollback) and question_ask goes through `elicit()`:
 *   capability check -> ask (own timeout, cancellation, heartbeats) -> normalise -> trace.
 * Every outcome leaves a trace (built by app/gate-trace, as the terminal's are).
 * Security: if the trace cannot be written the caller gets an OnboardingError
 * (TRACE_WRITE_FAILED) and must fail closed.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode as McpErrorCode, McpError, type ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { sdkTimeout } from '../runtime/config.js';
import { decide, fieldTitles, type RequestedSchema, type ResponseMode } from '../core/gates.js';
import type { ElicitationAction, ElicitationOutcome } from '../schemas/trace.js';
import type { TraceStore } from '../io/traces.js';
import { appendGateTrace, gateTraceRecord, type TraceRef } from '../app/gate-trace.js';
import { Progress, type ToolExtra } from './progress.js';

/** Raw result, validated by us (not by the SDK) so the trace records exactly what the client sent. */
const RawElicitResultSchema = z.object({ action: z.unknown(), content: z.unknown().optional() }).passthrough();

export interface ClientIdentity {
  name: string;
  version: string;
}

export function clientIdentity(server: Server): ClientIdentity {
  const v = server.getClientVersion();
  return { name: v?.name ?? 'unknown client', version: v?.version ?? 'unknown' };
}

export function clientCanElicit(server: Server): boolean {
  // The SDK rewrites `elicitation: {}` to `{form: {}}` while parsing initialize.
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
  /** The clock for the trace's timestamp and duration (default Date.now). */
  now?: () => number;
}

export interface ElicitOutcome {
  outcome: ElicitationOutcome;
  /** The accepted form content (only for approved/answered). */
  content: Record<string, unknown> | null;
  answer: string | null;
  /** Why the request did not approve/answer; null when it did. */
  reason: string | null;
  client: ClientIdentity;
  trace: TraceRef;
  durationMs: number;
}

/** Elicitations in flight, so that a server shutting down can let their traces be written. */
const inFlight = new Set<Promise<unknown>>();

/**
 * Resolves when every elicitation in flight has written its trace, or after `timeoutMs`.
 * `serve` awaits it after closing the transport: a client that disconnects while a form is open
 * gets its `cancelled` trace before the process exits.
 */
export async function elicitationsSettled(timeoutMs: number): Promise<void> {
  if (!inFlight.size) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled([...inFlight]), new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
  clearTimeout(timer);
}

export function elicit(server: Server, extra: ToolExtra, spec: ElicitSpec, store: TraceStore<'elicitation'>): Promise<ElicitOutcome> {
  const run = ask(server, extra, spec, store);
  inFlight.add(run);
  void run.then(
    () => inFlight.delete(run),
    () => inFlight.delete(run),
  );
  return run;
}

async function ask(server: Server, extra: ToolExtra, spec: ElicitSpec, store: TraceStore<'elicitation'>): Promise<ElicitOutcome> {
  const client = clientIdentity(server);
  const now = spec.now ?? Date.now;
  const started = now();

  if (!clientCanElicit(server)) {
    const reason = `${client.name} did not declare the MCP elicitation capability (form mode), so it cannot show the confirmation form.`;
    return record(store, spec, now, { outcome: 'unsupported', response: null, error: reason, reason, client, started, content: null, answer: null });
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
    const d = decide(spec.mode, raw as { action?: unknown; content?: unknown }, fieldTitles(spec.requestedSchema));
    outcome = d.outcome;
    reason = d.reason;
    answer = d.answer ?? null;
    if (outcome === 'error') error = d.reason;
  } catch (e) {
    ({ outcome, reason, error } = classifyFailure(e, extra, spec.timeoutMs, !server.transport));
  } finally {
    stopHeartbeat();
  }
  const content =
    (outcome === 'approved' || outcome === 'answered') && response && typeof response.content === 'object' ? (response.content as Record<string, unknown>) : null;
  return record(store, spec, now, { outcome, response, error, reason, client, started, content, answer });
}

/** `closed`: the connection is gone (the SDK aborts the call's signal first, then drops its transport). */
function classifyFailure(e: unknown, extra: ToolExtra, timeoutMs: number, closed: boolean): { outcome: ElicitationOutcome; reason: string; error: string } {
  const msg = e instanceof Error ? e.message : String(e);
  if (closed || (e instanceof McpError && e.code === McpErrorCode.ConnectionClosed)) {
    return { outcome: 'cancelled', reason: 'The client disconnected while the form was open.', error: `disconnect: the client disconnected while the form was open (${msg})` };
  }
  if (extra.signal.aborted) {
    return { outcome: 'cancelled', reason: 'The tool call was cancelled while the form was open.', error: `cancelled: ${msg}` };
  }
  if (e instanceof McpError && e.code === McpErrorCode.RequestTimeout) {
    return { outcome: 'timeout', reason: `No answer within ${Math.round(timeoutMs / 1000)} s; a timeout counts as a cancel.`, error: msg };
  }
  return { outcome: 'error', reason: `The elicitation failed: ${msg}`, error: msg };
}

async function record(
  store: TraceStore<'elicitation'>,
  spec: ElicitSpec,
  now: () => number,
  r: Omit<ElicitOutcome, 'trace' | 'durationMs'> & { response: Record<string, unknown> | null; error: string | null; started: number },
): Promise<ElicitOutcome> {
  const { response, error, started, ...out } = r;
  const { action, message, requestedSchema: schema, subject } = spec;
  const unsealed = gateTraceRecord({ channel: 'mcp', action, client: r.client, message, schema, response, outcome: r.outcome, subject, error, startedMs: started, endedMs: now() });
  return { ...out, trace: await appendGateTrace(store, unsealed), durationMs: unsealed.duration_ms };
}
