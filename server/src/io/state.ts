/**
 * `.copilot-state/onboarding.json`: the state machine record (versioned). A corrupted file
 * is reported with recovery advice, never silently reset.
 */
import { promises as fsp } from 'node:fs';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { OnboardingStateSchema, emptyState, STATE_VERSION, type OnboardingState } from '../schemas/state.js';
import { atomicWriteFile } from './durable.js';
import { rel, stateFile } from './layout.js';


export function statePath(root: string): string {
  return stateFile(root);
}

/** Load the state; a missing file is a new workspace. Corruption throws STATE_CORRUPT. */
export async function loadState(root: string, now = new Date().toISOString()): Promise<OnboardingState> {
  let text: string;
  try {
    text = await fsp.readFile(statePath(root), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return emptyState(now);
    throw e;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw corrupt('it is not valid JSON (truncated or edited by hand?)');
  }
  const version = (raw as { version?: unknown } | null)?.version;
  if (version !== STATE_VERSION) {
    throw corrupt(`its version is ${JSON.stringify(version)}; this server reads version ${STATE_VERSION}`);
  }
  const parsed = OnboardingStateSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw corrupt(`${first?.path.join('.') || 'the record'}: ${first?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

function corrupt(why: string): OnboardingError {
  return new OnboardingError(ErrorCode.STATE_CORRUPT, `${rel('onboarding.json')} is corrupted: ${why}.`, {
    next:
      'Your instruction files were not touched. Restore onboarding.json from version control or a copy, or move it aside ' +
      '(e.g. rename it to onboarding.json.bad) and run onboarding_analyze to start a fresh record; plans, backups and traces stay in .copilot-state/.',
  });
}

export async function saveState(root: string, state: OnboardingState): Promise<void> {
  const valid = OnboardingStateSchema.parse(state);
  await atomicWriteFile(statePath(root), JSON.stringify(valid, null, 2) + '\n');
}

/** Load, change, save. */
export async function updateState(root: string, change: (s: OnboardingState) => OnboardingState | void, now = new Date().toISOString()): Promise<OnboardingState> {
  const s = await loadState(root, now);
  const next = change(s) ?? s;
  next.updatedAt = now;
  await saveState(root, next);
  return next;
}
