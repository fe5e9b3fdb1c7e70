/**
 * What trace format @2 adds to a record's schema, checked by the store before it writes and by
 * verify after: the store seals the record's own file name and the time it sealed it (and, in
 * the elicitation chain, the workspace id and an approved approve's expiry).
 */
import type { ChainKind } from './layout.js';

export type ChainProblemKind = 'modified' | 'missing' | 'inserted' | 'reordered' | 'unparseable' | 'forged' | 'renamed' | 'dated' | 'head';

/** How far a sealed time may lie ahead of the verifier's clock (clocks of two machines differ). */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** The format the store writes; @1 records keep the rules they were written under. */
export const TRACE_FORMAT: Record<ChainKind, string> = {
  elicitation: 'copilot-onboarding/elicitation-trace@2',
  sampling: 'copilot-onboarding/sampling-trace@2',
};

export interface TraceStoreOptions {
  /** The clock that stamps `sealed_at` (milliseconds since the epoch). */
  now?: () => number;
  /** Sealed into an approved approve trace as `expires_at` = its timestamp + this. */
  approvalTtlMs?: number;
}

/**
 * The rules a record's format adds to its schema: a @2 record names its own file and carries
 * its seal time (and, in the elicitation chain, the workspace id; an approved approve, its
 * expiry). Any record that names a file must be in that file.
 */
export function sealProblem(kind: ChainKind, file: string, rec: Record<string, unknown>): { kind: ChainProblemKind; message: string } | null {
  if (typeof rec.file === 'string' && rec.file !== file) {
    return { kind: 'renamed', message: `${file}: was sealed as ${rec.file} (renamed or swapped)` };
  }
  if (!String(rec.format).endsWith('@2')) return null;
  const missing: string[] = [];
  if (typeof rec.file !== 'string') missing.push('file');
  if (typeof rec.sealed_at !== 'string' || Number.isNaN(Date.parse(rec.sealed_at))) missing.push('sealed_at');
  if (kind === 'elicitation') {
    if (typeof rec.workspace !== 'string' || !rec.workspace) missing.push('workspace');
    if (rec.action === 'approve' && rec.outcome === 'approved' && (typeof rec.expires_at !== 'string' || Number.isNaN(Date.parse(rec.expires_at)))) missing.push('expires_at');
  }
  if (Number.isNaN(Date.parse(String(rec.timestamp)))) missing.push('timestamp');
  return missing.length ? { kind: 'unparseable', message: `${file}: a @2 trace without a valid ${missing.join(', ')}` } : null;
}
