/**
 * What the operator commands (status, traces, rollback, schemas) share: exit codes, the
 * workspace rule (flag, then environment, then the current folder), the `--json` envelope and plain tables.
 */
import path from 'node:path';
import { assertWorkspaceFolder } from '../io/workspace.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { safeJson } from '../core/sanitize.js';

/** What a command may touch: its arguments, folders, environment and streams (tests pass their own). */
export interface CliIo {
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin?: NodeJS.ReadableStream;
  /** Whether stdin/stdout are a terminal a person can answer on. */
  isTTY?: boolean;
}

/**
 * Exit codes of every CLI command (documented in README / docs):
 *   0  done
 *   1  declined or refused (nothing was changed): the operator said no, no TTY without --yes,
 *      a corrupt or missing backup, nothing to roll back, busy, a trace that could not be written
 *   2  usage or invalid input (unknown option, bad migration id, unknown trace)
 *   3  verification failed: `traces verify` found a broken chain, `schemas --check` found stale files
 */
export const ExitCode = {
  OK: 0,
  REFUSED: 1,
  USAGE: 2,
  VERIFY_FAILED: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * Thrown by a command that has already written its output and only needs the error
 * boundary to return `exitCode` (no further message).
 */
export class CliExit extends Error {
  constructor(
    readonly exitCode: number,
    message = `exit ${exitCode}`,
  ) {
    super(message);
    this.name = 'CliExit';
  }
}

/** How an OnboardingError maps to an exit code. */
export function exitCodeFor(e: OnboardingError): ExitCode {
  switch (e.code) {
    case ErrorCode.INVALID_INPUT:
    case ErrorCode.PATH_OUTSIDE_WORKSPACE:
    case ErrorCode.WORKSPACE_INVALID:
      return ExitCode.USAGE;
    case ErrorCode.TRACE_CHAIN_BROKEN:
    case ErrorCode.VERIFY_FAILED:
      return ExitCode.VERIFY_FAILED;
    default:
      return ExitCode.REFUSED;
  }
}

/** The workspace for the terminal: --workspace, else COPILOT_ONBOARDING_WORKSPACE, else the current folder. */
export function resolveWorkspace(opt: string | undefined, io: { cwd: string; env: NodeJS.ProcessEnv }): string {
  const chosen = opt || io.env.COPILOT_ONBOARDING_WORKSPACE || io.cwd;
  const root = path.resolve(io.cwd, chosen);
  assertWorkspaceFolder(root);
  return root;
}

/** The `--json` envelope: `{ok, command, data}` on success, `{ok:false, command, error, exitCode}` on failure. */
export function writeJson(out: NodeJS.WritableStream, value: unknown): void {
  out.write(safeJson(value, 2) + '\n');
}

export function jsonOk(command: string, data: unknown): Record<string, unknown> {
  return { ok: true, command, data };
}

/** Align columns; the last column is not padded. */
export function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The command path of argv for the JSON error envelope, e.g. "traces verify". */
export function commandName(argv: readonly string[]): string {
  const words: string[] = [];
  for (const a of argv.slice(2)) {
    if (a.startsWith('-')) break;
    words.push(a);
    if (words.length === 2 || words[0] !== 'traces') break;
  }
  return words.join(' ') || 'serve';
}
