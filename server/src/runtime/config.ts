/**
 * Runtime configuration, read once from the environment by the entry point and passed down.
 * The clock is part of it so that approval lifetimes and form durations follow one source of
 * time, which tests replace instead of sleeping.
 */
export interface Config {
  /** Gate elicitation timeout; 0 = wait forever. Env COPILOT_ONBOARDING_APPROVAL_TIMEOUT_MS (default 180000). */
  approvalTimeoutMs: number;
  /** question_ask timeout; 0 = wait forever (default). Env COPILOT_ONBOARDING_QUESTION_TIMEOUT_MS. */
  questionTimeoutMs: number;
  /** How long an approval stays valid. Env COPILOT_ONBOARDING_APPROVAL_TTL_MS (default 24 h). */
  approvalTtlMs: number;
  /** Sampling (narration) timeout. Env COPILOT_ONBOARDING_SAMPLING_TIMEOUT_MS (default 120000). */
  samplingTimeoutMs: number;
  /** Progress heartbeat interval while waiting for a human. Env COPILOT_ONBOARDING_HEARTBEAT_MS (default 15000). */
  heartbeatMs: number;
  /** Milliseconds since the epoch: approval TTL checks and form timestamps/durations read this clock (default Date.now). */
  now: () => number;
  /** Longest inbound JSON-RPC line on stdio, in bytes. Env COPILOT_ONBOARDING_MAX_MESSAGE_BYTES (default 4 MiB). */
  maxMessageBytes: number;
}

export const DEFAULT_CONFIG: Config = {
  approvalTimeoutMs: 180_000,
  questionTimeoutMs: 0,
  approvalTtlMs: 24 * 60 * 60 * 1000,
  samplingTimeoutMs: 120_000,
  heartbeatMs: 15_000,
  now: () => Date.now(),
  maxMessageBytes: 4 * 1024 * 1024,
};

function num(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const v = Number(raw);
  if (!Number.isFinite(v) || v < min || !Number.isInteger(v)) {
    throw new Error(`${name} must be a whole number >= ${min} (milliseconds), got ${JSON.stringify(raw)}`);
  }
  return v;
}

export function configFromEnv(env: NodeJS.ProcessEnv): Config {
  return {
    approvalTimeoutMs: num(env, 'COPILOT_ONBOARDING_APPROVAL_TIMEOUT_MS', DEFAULT_CONFIG.approvalTimeoutMs, 0),
    questionTimeoutMs: num(env, 'COPILOT_ONBOARDING_QUESTION_TIMEOUT_MS', DEFAULT_CONFIG.questionTimeoutMs, 0),
    approvalTtlMs: num(env, 'COPILOT_ONBOARDING_APPROVAL_TTL_MS', DEFAULT_CONFIG.approvalTtlMs, 1),
    samplingTimeoutMs: num(env, 'COPILOT_ONBOARDING_SAMPLING_TIMEOUT_MS', DEFAULT_CONFIG.samplingTimeoutMs, 1),
    heartbeatMs: num(env, 'COPILOT_ONBOARDING_HEARTBEAT_MS', DEFAULT_CONFIG.heartbeatMs, 10),
    now: DEFAULT_CONFIG.now,
    maxMessageBytes: num(env, 'COPILOT_ONBOARDING_MAX_MESSAGE_BYTES', DEFAULT_CONFIG.maxMessageBytes, 1024),
  };
}

/**
 * Node's setTimeout ceiling (about 24.8 days). "No timeout" must be this value, never
 * Infinity: Infinity, NaN, 0 and anything >= 2^31 make Node fire after 1 ms.
 */
export const NO_TIMEOUT_MS = 2_147_483_647;

/** Map a configured timeout (0 = none) to a value safe for the SDK's request timer. */
export function sdkTimeout(ms: number): number {
  if (!Number.isFinite(ms) || ms <= 0 || ms > NO_TIMEOUT_MS) return NO_TIMEOUT_MS;
  return Math.floor(ms);
}
