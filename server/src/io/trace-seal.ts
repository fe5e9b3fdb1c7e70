/**
 * What trace formats @2 and @3 add to a record's schema, checked by the store before it writes
 * and by verify after: the store seals the record's own file name and the time it sealed it
 * (and, in the elicitation chain, the workspace id and an approved approve's expiry); @3 adds
 * `mac`, the HMAC-SHA-256 of the record with the per-user key (io/user-key.ts).
 */
import type { ChainKind } from './layout.js';

export type ChainProblemKind = 'modified' | 'missing' | 'inserted' | 'reordered' | 'unparseable' | 'forged' | 'renamed' | 'dated' | 'head' | 'unauthenticated';

/** How far a sealed time may lie ahead of the verifier's clock (clocks of two machines differ). */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** The format the store writes; @1 and @2 records keep the rules they were written under. */
export const TRACE_FORMAT: Record<ChainKind, string> = {
  elicitation: 'copilot-onboarding/elicitation-trace@3',
  sampling: 'copilot-onboarding/sampling-trace@3',
};

/** 1, 2 or 3: the version at the end of a record's `format` (1 when it names none of them). */
export function formatVersion(rec: Record<string, unknown>): number {
  const m = /@([23])$/.exec(String(rec.format));
  return m ? Number(m[1]) : 1;
}

export interface TraceStoreOptions {
  /** The clock that stamps `sealed_at` (milliseconds since the epoch). */
  now?: () => number;
  /** Sealed into an approved approve trace as `expires_at` = its timestamp + this. */
  approvalTtlMs?: number;
}

/**
 * The rules a record's format adds to its schema: a @2 or @3 record names its own file and
 * carries its seal time (and, in the elicitation chain, the workspace id; an approved approve,
 * its expiry); a @3 record carries its `mac`. Any record that names a file must be in that file.
 */
export function sealProblem(kind: ChainKind, file: string, rec: Record<string, unknown>): { kind: ChainProblemKind; message: string } | null {
  if (typeof rec.file === 'string' && rec.file !== file) {
    return { kind: 'renamed', message: `${file}: was sealed as ${rec.file} (renamed or swapped)` };
  }
  const version = formatVersion(rec);
  if (version < 2) return null;
  const missing: string[] = [];
  if (version >= 3 && (typeof rec.mac !== 'string' || !/^[0-9a-f]{64}$/.test(rec.mac))) missing.push('mac');
  if (version >= 3 && rec.prev_file !== null && typeof rec.prev_file !== 'string') missing.push('prev_file');
  if (typeof rec.file !== 'string') missing.push('file');
  if (typeof rec.sealed_at !== 'string' || Number.isNaN(Date.parse(rec.sealed_at))) missing.push('sealed_at');
  if (kind === 'elicitation') {
    if (typeof rec.workspace !== 'string' || !rec.workspace) missing.push('workspace');
    if (rec.action === 'approve' && rec.outcome === 'approved' && (typeof rec.expires_at !== 'string' || Number.isNaN(Date.parse(rec.expires_at)))) missing.push('expires_at');
  }
  if (Number.isNaN(Date.parse(String(rec.timestamp)))) missing.push('timestamp');
  return missing.length ? { kind: 'unparseable', message: `${file}: a @${version} trace without a valid ${missing.join(', ')}` } : null;
}
