import { z } from 'zod';

const ElicitationOutcomeSchema = z.enum([
  'approved',
  'declined',
  'cancelled',
  'timeout',
  'unsupported',
  'error',
  'answered',
  'refused',
  /** Crash recovery acted (action `recover`): nobody was asked; the message says what it did. */
  'recovered',
]);
export type ElicitationOutcome = z.infer<typeof ElicitationOutcomeSchema>;

const ElicitationActionSchema = z.enum(['approve', 'migrate', 'rollback', 'question', 'recover']);
export type ElicitationAction = z.infer<typeof ElicitationActionSchema>;

const ClientInfoSchema = z.object({ name: z.string(), version: z.string() });

/** Fields shared by both chains: position and hash links. */
const ChainFields = {
  seq: z.number().int().positive(),
  /** sha256 of the previous trace's canonical JSON (the whole previous record), or null for the first. */
  prev_sha256: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
  /** sha256 of this record's canonical JSON without this field. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** From format @2 (required there, sealed): the record's own file name in its chain folder. */
  file: z.string().optional(),
  /** From format @2 (required there, sealed): when the store sealed the record (ISO 8601, the server's clock). */
  sealed_at: z.string().optional(),
  /**
   * From format @3 (required there): HMAC-SHA-256 (hex) with the per-user key, over the record's
   * canonical JSON without `sha256` and `mac`. Part of what `sha256` covers.
   */
  mac: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  /** From format @3 (required there, sealed): the file name of the previous trace (null for seq 1), so a reader can walk back from the head. */
  prev_file: z.string().nullable().optional(),
};

/** One JSON file per gate call or question in `.copilot-state/elicitation-traces/`. */
export const ElicitationTraceSchema = z.object({
  format: z.enum(['copilot-onboarding/elicitation-trace@1', 'copilot-onboarding/elicitation-trace@2', 'copilot-onboarding/elicitation-trace@3']),
  ...ChainFields,
  timestamp: z.string(),
  action: ElicitationActionSchema,
  channel: z.enum(['mcp', 'cli']),
  client: ClientInfoSchema,
  /** The exact text shown to the human ('' when nothing was shown: `unsupported`, `refused`). */
  message: z.string(),
  /** The requestedSchema sent. */
  schema: z.record(z.string(), z.unknown()),
  /** The client's response as received (null when there was none: unsupported, timeout, cancel, error). */
  response: z.record(z.string(), z.unknown()).nullable(),
  outcome: ElicitationOutcomeSchema,
  /** What the elicitation was about, e.g. {planId, planSha256} or {question}. */
  subject: z.record(z.string(), z.unknown()),
  duration_ms: z.number().nonnegative(),
  error: z.string().nullable(),
  /** The error code of a gate call refused before any form (`refused`, `unsupported`); absent otherwise and in older traces. */
  code: z.string().optional(),
  /** Set when a decline/cancel arrived faster than a person could plausibly read the form (never acted on). */
  suspected_automatic: z.boolean().optional(),
  /** From @2 (required there): the random id of the workspace whose state folder holds the chain. */
  workspace: z.string().optional(),
  /** From @2, on an approved approve (required there): when the approval ends, whatever TTL is configured later. */
  expires_at: z.string().optional(),
});
export type ElicitationTrace = z.infer<typeof ElicitationTraceSchema>;

const SamplingOutcomeSchema = z.enum(['narrated', 'declined', 'unsupported', 'error', 'timeout', 'cancelled', 'skipped']);
export type SamplingOutcome = z.infer<typeof SamplingOutcomeSchema>;

/** One JSON file per sampling call in `.copilot-state/sampling-traces/`. */
export const SamplingTraceSchema = z.object({
  format: z.enum(['copilot-onboarding/sampling-trace@1', 'copilot-onboarding/sampling-trace@2', 'copilot-onboarding/sampling-trace@3']),
  ...ChainFields,
  timestamp: z.string(),
  /** What the narration was for: analyze | propose. */
  intent: z.string(),
  client: ClientInfoSchema,
  /** The request sent (system prompt, messages, maxTokens), or null when nothing was sent. */
  request: z.record(z.string(), z.unknown()).nullable(),
  /** {model, stopReason, text} as received, or null. */
  response: z.record(z.string(), z.unknown()).nullable(),
  outcome: SamplingOutcomeSchema,
  /** True when the deterministic fallback text was used instead of the model's. */
  fallback_used: z.boolean(),
  duration_ms: z.number().nonnegative(),
  error: z.string().nullable(),
});
export type SamplingTrace = z.infer<typeof SamplingTraceSchema>;
