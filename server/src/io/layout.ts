/**
 * Every path under `.copilot-state/`: the one place that knows the state folder's layout.
 * Functions taking `root` return absolute paths; `rel` gives the
 * workspace-relative POSIX form used in messages, manifests and onboarding.json.
 */
import path from 'node:path';

export const STATE_DIR = '.copilot-state';

export type ChainKind = 'elicitation' | 'sampling';

const TRACE_DIRS: Record<ChainKind, string> = { elicitation: 'elicitation-traces', sampling: 'sampling-traces' };

/** Both trace chains, in the order they are listed. */
export const CHAINS: readonly ChainKind[] = ['elicitation', 'sampling'];

/** Workspace-relative POSIX path of something inside the state folder. */
export function rel(...parts: string[]): string {
  return [STATE_DIR, ...parts].join('/');
}

export function stateDir(root: string): string {
  return path.join(root, STATE_DIR);
}

export function stateFile(root: string): string {
  return path.join(stateDir(root), 'onboarding.json');
}

/**
 * The workspace's random id, created with the state folder's first record. It lives in its own
 * file (so it survives onboarding.json being moved aside and rebuilt) and is copied into
 * onboarding.json; approvals are sealed with it.
 */
export function workspaceIdFile(root: string): string {
  return path.join(stateDir(root), 'workspace-id');
}

/** Where the last verified walk of the elicitation chain ended (io/state.ts, authenticated with the per-user key). */
export function traceCheckpointFile(root: string): string {
  return path.join(stateDir(root), 'trace-checkpoint.json');
}

export function journalFile(root: string): string {
  return path.join(stateDir(root), 'journal.json');
}

export function lockFile(root: string): string {
  return path.join(stateDir(root), 'lock');
}

function plansDir(root: string): string {
  return path.join(stateDir(root), 'plans');
}

export function planFile(root: string, planId: string): string {
  return path.join(plansDir(root), `${planId}.json`);
}

export function backupsDir(root: string): string {
  return path.join(stateDir(root), 'backups');
}

function backupFileNames(migrationId: string): { archive: string; manifest: string } {
  return { archive: `${migrationId}.tar.gz`, manifest: `${migrationId}.manifest.json` };
}

/** Workspace-relative POSIX paths of a migration's archive and manifest. */
export function backupRelPaths(migrationId: string): { archive: string; manifest: string } {
  const n = backupFileNames(migrationId);
  return { archive: rel('backups', n.archive), manifest: rel('backups', n.manifest) };
}

/**
 * Where a rollback saves the files edited since its migration before it restores or removes
 * them: `backups/<migrationId>.edited/<workspace-relative path>`.
 */
export function editedDir(root: string, migrationId: string): string {
  return path.join(backupsDir(root), `${migrationId}.edited`);
}

export function editedRelDir(migrationId: string): string {
  return rel('backups', `${migrationId}.edited`);
}

/** The workspace-relative path where a rollback of `migrationId` saves its copy of the edited file `path`. */
export function savedCopyPath(migrationId: string, path: string): string {
  return `${editedRelDir(migrationId)}/${path}`;
}

export function manifestFile(root: string, migrationId: string): string {
  return path.join(backupsDir(root), backupFileNames(migrationId).manifest);
}

export function traceDirName(kind: ChainKind): string {
  return TRACE_DIRS[kind];
}

export function traceDir(root: string, kind: ChainKind): string {
  return path.join(stateDir(root), TRACE_DIRS[kind]);
}

export function questionsDir(root: string): string {
  return path.join(stateDir(root), 'questions');
}

/** The names of the question files for one question, and the questions folder's stamp when they were listed (io/questions.ts). */
export function questionsIndexFile(root: string): string {
  return path.join(stateDir(root), 'questions-index.json');
}
