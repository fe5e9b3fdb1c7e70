/**
 * One-line summaries of both trace chains, shared by `copilot-onboarding traces list` and
 * the `copilot-onboarding://traces` resource. Reads only `.copilot-state/*-traces/`.
 */
import { TraceStore, type ChainKind } from '../io/traces.js';
import type { ElicitationTrace, SamplingTrace } from '../schemas/trace.js';
import { CHAINS } from '../io/layout.js';

export interface TraceSummary {
  chain: ChainKind;
  /** null when the file could not be read as a trace. */
  seq: number | null;
  file: string;
  timestamp: string | null;
  /** The elicitation's action, or the sampling call's intent. */
  action: string | null;
  channel: string | null;
  client: string | null;
  outcome: string | null;
  /** A short description of what the trace is about (plan, migration, question). */
  subject: string | null;
  /** Why the file could not be read (unparseable or not a trace), else null. */
  error: string | null;
}

const ellipsis = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function shortSubject(rec: ElicitationTrace | SamplingTrace): string {
  if ('intent' in rec) {
    const model = rec.response && typeof rec.response.model === 'string' ? rec.response.model : null;
    return rec.fallback_used ? 'fallback text' : model ? `model ${ellipsis(model, 40)}` : '';
  }
  const s = rec.subject as Record<string, unknown>;
  const str = (k: string) => (typeof s[k] === 'string' ? (s[k] as string) : null);
  const parts: string[] = [];
  if (str('migrationId')) parts.push(`migration ${str('migrationId')}`);
  else if (str('planId')) parts.push(`plan ${str('planId')}`);
  if (str('planSha256') && !str('migrationId')) parts.push(`sha256 ${str('planSha256')!.slice(0, 12)}`);
  if (str('question')) parts.push(JSON.stringify(ellipsis(str('question')!.replace(/\s+/g, ' '), 48)));
  if (Array.isArray(s.editedSinceMigration) && s.editedSinceMigration.length) parts.push(`${s.editedSinceMigration.length} edited since`);
  return parts.join(', ');
}

function summarize(chain: ChainKind, file: string, rec: ElicitationTrace | SamplingTrace | null, error: string | null): TraceSummary {
  if (!rec) {
    return { chain, seq: null, file, timestamp: null, action: null, channel: null, client: null, outcome: null, subject: null, error: error ?? 'unreadable' };
  }
  return {
    chain,
    seq: rec.seq,
    file,
    timestamp: rec.timestamp,
    action: 'intent' in rec ? rec.intent : rec.action,
    channel: 'channel' in rec ? rec.channel : null,
    client: `${rec.client.name} ${rec.client.version}`,
    outcome: rec.outcome,
    subject: shortSubject(rec),
    error: null,
  };
}

/** Every trace of one chain, in seq order (unreadable files last, with their error). */
export async function listChain(root: string, chain: ChainKind): Promise<TraceSummary[]> {
  const rows = await new TraceStore(root, chain).list();
  return rows.map((r) => summarize(chain, r.file, r.record, r.error));
}

export async function listAllTraces(root: string): Promise<Record<ChainKind, TraceSummary[]>> {
  const [elicitation, sampling] = await Promise.all(CHAINS.map((c) => listChain(root, c)));
  return { elicitation: elicitation ?? [], sampling: sampling ?? [] };
}
