/**
 * The one builder of elicitation trace records, for both channels: the MCP form (`mcp`) and
 * the operator's terminal (`cli`). A gate's answer is only acted on once its record is in the
 * chain, so the record has one shape whoever asked, and appending it is the one place that
 * turns a write failure into TRACE_WRITE_FAILED.
 *
 * Security: fail closed. If the trace cannot be written, the caller gets an OnboardingError
 * and must neither approve nor change anything.
 */
import { ErrorCode, OnboardingError } from '../core/errors.js';
import type { ElicitationAction, ElicitationOutcome, ElicitationTrace } from '../schemas/trace.js';
import type { TraceStore } from '../io/traces.js';
import path from 'node:path';
import { rel, traceDirName } from '../io/layout.js';
import { assertStateWrite } from '../io/workspace.js';

export type GateChannel = ElicitationTrace['channel'];
export type UnsealedElicitationTrace = Omit<ElicitationTrace, 'seq' | 'prev_sha256' | 'sha256'>;
export interface TraceRef {
  file: string;
  path: string;
  seq: number;
  sha256: string;
  /** The record's timestamp: when the question was put (or the refusal made). */
  timestamp: string;
}

/** A decline or cancel faster than this is flagged as possibly automatic (never acted on). */
const SUSPECT_AUTOMATIC_MS = 100;
/** Responses larger than this are not stored verbatim in the trace. */
const MAX_TRACED_RESPONSE_CHARS = 64 * 1024;

export interface GateTraceInput {
  channel: GateChannel;
  action: ElicitationAction;
  client: { name: string; version: string };
  message: string;
  schema: Record<string, unknown>;
  response: Record<string, unknown> | null;
  outcome: ElicitationOutcome;
  subject: Record<string, unknown>;
  error: string | null;
  /** The error code when the call was refused before any form (outcome `refused` or `unsupported`). */
  code?: string;
  /** When the question was put, and when the answer came (milliseconds since the epoch, from the caller's clock). */
  startedMs: number;
  endedMs: number;
}

export function gateTraceRecord(t: GateTraceInput): UnsealedElicitationTrace {
  const durationMs = Math.max(0, t.endedMs - t.startedMs);
  // Only a client can answer by itself; a terminal answer is typed or given by --yes.
  const suspect = t.channel === 'mcp' && (t.outcome === 'declined' || t.outcome === 'cancelled') && t.response !== null && durationMs < SUSPECT_AUTOMATIC_MS;
  return {
    format: 'copilot-onboarding/elicitation-trace@1',
    timestamp: new Date(t.startedMs).toISOString(),
    action: t.action,
    channel: t.channel,
    client: { name: t.client.name, version: t.client.version },
    message: t.message,
    schema: t.schema,
    response: boundResponse(t.response),
    outcome: t.outcome,
    subject: t.subject,
    duration_ms: durationMs,
    error: t.error,
    ...(t.code !== undefined ? { code: t.code } : {}),
    ...(suspect ? { suspected_automatic: true } : {}),
  };
}

/** Append a gate trace; failure to write is an OnboardingError so gates fail closed. */
export async function appendGateTrace(store: TraceStore<'elicitation'>, unsealed: UnsealedElicitationTrace): Promise<TraceRef> {
  try {
    await assertStateWrite(store.root, path.join(store.dir, '.head.json')); // safety: trace-write-recheck
    const { record, file } = await store.append(unsealed, unsealed.action);
    return { file, path: rel(traceDirName('elicitation'), file), seq: record.seq, sha256: record.sha256, timestamp: record.timestamp };
  } catch (e) {
    throw new OnboardingError(
      ErrorCode.TRACE_WRITE_FAILED,
      `The elicitation trace could not be written (${(e as Error).message}). Without a trace nothing is approved or changed.`,
      { next: 'Check that .copilot-state/elicitation-traces/ is writable, then try again.', cause: e },
    );
  }
}

/**
 * Trace a gate call that was refused before any form was shown (no plan, not approved, stale,
 * busy, no migration, or a client that cannot show forms): nobody was asked, so the record
 * has no message, schema or response, only who called, about what, and the error code.
 * An auditor sees an agent that keeps calling migrate without approval.
 */
export async function traceRefusal(
  store: TraceStore<'elicitation'>,
  r: Pick<GateTraceInput, 'channel' | 'action' | 'client' | 'subject'> & { outcome: 'refused' | 'unsupported'; code: string; message: string; atMs: number },
): Promise<TraceRef> {
  const { message, atMs, ...rest } = r;
  return appendGateTrace(store, gateTraceRecord({ ...rest, message: '', schema: {}, response: null, error: `${r.code}: ${message}`, startedMs: atMs, endedMs: atMs }));
}

function boundResponse(resp: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!resp) return null;
  const text = JSON.stringify(resp);
  if (text.length <= MAX_TRACED_RESPONSE_CHARS) return resp;
  return { action: resp.action, truncated: true, size_chars: text.length, head: text.slice(0, 1024) };
}
