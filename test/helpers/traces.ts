import type { ElicitationTrace } from '../../server/src/schemas/trace.js';
import { TraceStore } from '../../server/src/io/traces.js';
import { appendGateTrace, gateTraceRecord, type GateTraceInput, type TraceRef } from '../../server/src/app/gate-trace.js';

export function unsealed(i: number, over: Partial<ElicitationTrace> = {}): Omit<ElicitationTrace, 'seq' | 'prev_sha256' | 'sha256'> {
  return {
    format: 'copilot-onboarding/elicitation-trace@1',
    timestamp: new Date(Date.UTC(2026, 10, 22, 10, 0, 0, i)).toISOString(),
    action: 'approve',
    channel: 'mcp',
    client: { name: 'test', version: '1' },
    message: `message ${i}`,
    schema: { type: 'object', properties: { approved: { type: 'boolean', default: false } }, required: ['approved'] },
    response: { action: 'accept', content: { approved: true } },
    outcome: 'approved',
    subject: { planId: 'p', planSha256: 'a'.repeat(64), i },
    duration_ms: 5,
    error: null,
    ...over,
  };
}

/** `n` approve traces appended to the elicitation chain of `root`; their file names. */
export async function fillChain(root: string, n: number, opts: ConstructorParameters<typeof TraceStore>[2] = {}): Promise<string[]> {
  const store = new TraceStore(root, 'elicitation', opts);
  const files: string[] = [];
  for (let i = 0; i < n; i++) files.push((await store.append(unsealed(i), 'approve')).file);
  return files;
}

/** A CLI approve gate's record (app/gate-trace), declined unless `over` says otherwise, appended to the chain of `root`. */
export function appendCliGateTrace(root: string, over: Partial<GateTraceInput> = {}): Promise<TraceRef> {
  const now = Date.now();
  const input: GateTraceInput = { channel: 'cli', action: 'approve', client: { name: 'test', version: '1' }, message: 'Approve?', schema: {}, response: null, outcome: 'declined', subject: {}, error: null, startedMs: now, endedMs: now, ...over };
  return appendGateTrace(new TraceStore(root, 'elicitation'), gateTraceRecord(input));
}
