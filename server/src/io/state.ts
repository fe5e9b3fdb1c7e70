/**
 * `.copilot-state/onboarding.json`: the state machine record (versioned). A corrupted file
 * is reported with recovery advice, never silently reset. Version 1 files are read and
 * written back as version 2 on the next save.
 *
 * Security: onboarding.json also keeps a second copy of each trace chain's last link (seq,
 * hash, file) and the workspace id, so deleting a chain head together with the newest traces,
 * or wiping the trace folder, is noticed; the id itself lives in `.copilot-state/workspace-id`.
 * The trace checkpoint (`.copilot-state/trace-checkpoint.json`) is owned here too.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { OnboardingStateSchema, TraceCheckpointSchema, emptyState, STATE_VERSION, type ChainMark, type OnboardingState } from '../schemas/state.js';
import { canonicalJson } from '../core/canonical.js';
import type { ApprovalLedger } from '../core/approval.js';
import { atomicWriteFile, createExclusive } from './durable.js';
import { rel, stateFile, traceCheckpointFile, workspaceIdFile, type ChainKind } from './layout.js';
import type { ChainLink } from './traces.js';
import type { UserKey } from './user-key.js';
import { assertStateWrite, unlessMissing } from './workspace.js';

/** Load the state; a missing file is a new workspace. Corruption throws STATE_CORRUPT. */
export async function loadState(root: string, now = new Date().toISOString()): Promise<OnboardingState> {
  const text = await unlessMissing(() => fsp.readFile(stateFile(root), 'utf8'));
  if (text === null) return emptyState(now);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw corrupt('it is not valid JSON (truncated or edited by hand?)');
  }
  const version = (raw as { version?: unknown } | null)?.version;
  if (version !== STATE_VERSION && version !== 1) {
    throw corrupt(`its version is ${JSON.stringify(version)}; this server reads versions 1 and ${STATE_VERSION}`);
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
  const valid = OnboardingStateSchema.parse({ ...state, version: STATE_VERSION, workspaceId: await workspaceId(root, state.workspaceId) });
  await assertStateWrite(root, stateFile(root)); // safety: state-write-recheck
  await atomicWriteFile(stateFile(root), JSON.stringify(valid, null, 2) + '\n');
}

/** Load, change, save. */
export async function updateState(root: string, change: (s: OnboardingState) => OnboardingState | void, now = new Date().toISOString()): Promise<OnboardingState> {
  const s = await loadState(root, now);
  const next = change(s) ?? s;
  next.updatedAt = now;
  await saveState(root, next);
  return next;
}

const ID_RE = /^[0-9a-f]{32}$/;

/**
 * The workspace id: `.copilot-state/workspace-id`, created on first use (from onboarding.json's
 * copy when that file is gone but the record survived, else 128 random bits). An unreadable or
 * malformed id file is STATE_CORRUPT: approvals cannot be bound to nothing.
 */
export async function workspaceId(root: string, fromState?: string): Promise<string> {
  const file = workspaceIdFile(root);
  for (let attempt = 0; attempt < 2; attempt++) {
    const text = (await unlessMissing(() => fsp.readFile(file, 'utf8')))?.trim();
    if (text !== undefined) {
      if (!ID_RE.test(text)) {
        throw new OnboardingError(ErrorCode.STATE_CORRUPT, `${rel('workspace-id')} is corrupted: it is not 32 hex characters.`, {
          next: 'Restore it from a copy, or delete it (approvals recorded under the old id will then have to be given again).',
        });
      }
      return text;
    }
    const seed = fromState !== undefined && ID_RE.test(fromState) ? fromState : (await rawState(root))?.workspaceId;
    const id = typeof seed === 'string' && ID_RE.test(seed) ? seed : randomBytes(16).toString('hex');
    await fsp.mkdir(path.dirname(file), { recursive: true });
    // Complete or absent, never torn: a kill half-way must not leave an id file that is empty.
    if (await createExclusive(file, `${id}\n`)) return id;
  }
  throw new OnboardingError(ErrorCode.STATE_CORRUPT, `${rel('workspace-id')} keeps changing while it is read.`);
}

/** onboarding.json as JSON, without validation (null when missing or not JSON). */
async function rawState(root: string): Promise<{ workspaceId?: unknown; chains?: Record<string, unknown> } | null> {
  try {
    const v = JSON.parse(await fsp.readFile(stateFile(root), 'utf8')) as unknown;
    return v && typeof v === 'object' ? (v as { workspaceId?: unknown; chains?: Record<string, unknown> }) : null;
  } catch {
    return null;
  }
}

/** The chain's last link as recorded in onboarding.json (null: none recorded; loadState errors propagate). */
export async function recordedChainMark(root: string, kind: ChainKind): Promise<ChainMark | null> {
  return (await loadState(root)).chains?.[kind] ?? null;
}

/** Record the chain's new last link in onboarding.json (called by the trace store under its lock). */
export async function recordChainMark(root: string, kind: ChainKind, mark: ChainMark): Promise<void> {
  const s = await loadState(root);
  s.chains = { ...s.chains, [kind]: mark };
  await saveState(root, s);
}

/**
 * The trace checkpoint of the elicitation chain, when it authenticates with `key` and names this
 * workspace; null otherwise (missing, truncated, edited, forged, copied from another workspace):
 * then the whole chain is walked. Never an error: the checkpoint only saves time.
 */
export async function loadTraceCheckpoint(root: string, key: UserKey, workspace: string): Promise<{ link: ChainLink; ledger: ApprovalLedger } | null> {
  let raw: unknown;
  try {
    raw = JSON.parse(await fsp.readFile(traceCheckpointFile(root), 'utf8'));
  } catch {
    return null;
  }
  const parsed = TraceCheckpointSchema.safeParse(raw);
  if (!parsed.success) return null;
  const { mac, ...rest } = parsed.data;
  if (key.mac(canonicalJson(rest)) !== mac || rest.workspace !== workspace) return null; // safety: checkpoint-authenticated
  const ledger: ApprovalLedger = Object.assign(Object.create(null) as ApprovalLedger, rest.ledger);
  return { link: rest.link, ledger };
}

/** Record where a verified walk of the elicitation chain ended, authenticated with `key`. */
export async function saveTraceCheckpoint(root: string, key: UserKey, workspace: string, link: ChainLink, ledger: ApprovalLedger, now = new Date()): Promise<void> {
  const rest = { format: 'copilot-onboarding/trace-checkpoint@1' as const, chain: 'elicitation' as const, workspace, verifiedAt: now.toISOString(), link, ledger };
  const record = TraceCheckpointSchema.parse({ ...rest, mac: key.mac(canonicalJson(rest)) });
  await atomicWriteFile(traceCheckpointFile(root), JSON.stringify(record, null, 2) + '\n');
}
