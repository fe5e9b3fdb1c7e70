/**
 * Shared fixtures for the tests that work on real temp workspaces (integration tests): hashing,
 * writing files, a digest of a whole workspace, plans sealed the way the planner seals them, and
 * the built dist/ and the crash-runner child process that imports it.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, promises as fsp, writeFileSync } from 'node:fs';
import path from 'node:path';
import { planHash } from '../../server/src/core/plan.js';
import type { Operation, Plan } from '../../server/src/schemas/plan.js';

const REPO = path.resolve(import.meta.dirname, '../..');

/** SHA-256, hex (computed here, not with the product's helper, so a test does not check the product against itself). */
export const sha = (b: string | Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** Write `data` at `root/rel`, creating the folders on the way, then set `mode` when given. */
export async function writeFileIn(root: string, rel: string, data: string | Uint8Array, mode?: number): Promise<void> {
  const abs = path.join(root, rel);
  await fsp.mkdir(path.dirname(abs), { recursive: true });
  await fsp.writeFile(abs, data);
  if (mode !== undefined) await fsp.chmod(abs, mode);
}

/**
 * Every file and folder outside .copilot-state, by relative path ('/'-separated, folders end in
 * '/'), sorted by path: `<mode> <sha256>` for a file, `<mode> dir` for a folder, `<mode> -> <target>`
 * for a symlink (never followed). With `modes: false` the `<mode> ` prefix is left out.
 */
export async function treeDigest(root: string, opts: { modes?: boolean } = {}): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(dir: string): Promise<void> {
    for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
      if (e.name === '.copilot-state') continue;
      const abs = path.join(dir, e.name);
      const rel = path.relative(root, abs).split(path.sep).join('/');
      const mode = opts.modes === false ? '' : `${((await fsp.lstat(abs)).mode & 0o7777).toString(8)} `;
      if (e.isDirectory()) {
        out[`${rel}/`] = `${mode}dir`;
        await walk(abs);
      } else if (e.isSymbolicLink()) out[rel] = `${mode}-> ${await fsp.readlink(abs)}`;
      else out[rel] = `${mode}${sha(await fsp.readFile(abs))}`;
    }
  }
  await walk(root);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** One planned change, as a test writes it: the new content, or a deletion. */
export type OpSpec = { op: 'create' | 'modify'; path: string; content: string } | { op: 'delete'; path: string };
type PlanSource = Plan['sources'][number];

/** A source entry of a plan: the file the planner read, with its size and hash. */
function planSource(rel: string, bytes: Uint8Array): PlanSource {
  return { path: rel, kind: 'copilot-repo', size: bytes.length, sha256: sha(bytes) };
}

/** A plan body around `operations` (empty sections, no problems, low risk, an empty lossless proof unless given), sealed as the planner seals one (planHash), planId = its first 16 hex digits. */
export function sealPlan(operations: Operation[], extra: Partial<Omit<Plan, 'operations' | 'planId' | 'sha256'>> = {}): Plan {
  const body = {
    format: 'copilot-onboarding/plan@1' as const,
    pattern: 'structured' as const,
    sources: [] as PlanSource[],
    sections: [],
    operations,
    problems: [],
    risk: 'low' as const,
    riskReasons: [],
    overrides: [],
    lossless: { outputs: [], coveredSources: [], ok: true },
    ...extra,
  };
  const hash = planHash(body);
  return { ...body, planId: hash.slice(0, 16), sha256: hash };
}

/**
 * A sealed Plan built the way the planner builds one: hashes over the real bytes. `before` holds
 * the current bytes of every file a spec modifies or deletes; `sourcePaths` name the files the
 * planner read (their bytes come from `before` too).
 */
export function planFromOps(before: ReadonlyMap<string, Uint8Array>, specs: readonly OpSpec[], sourcePaths: readonly string[] = []): Plan {
  const bytesOf = (rel: string): Uint8Array => {
    const b = before.get(rel);
    if (!b) throw new Error(`test bug: no bytes for ${rel}`);
    return b;
  };
  const operations = specs.map((s): Operation => {
    const prev = s.op === 'create' ? null : bytesOf(s.path);
    const content = s.op === 'delete' ? null : s.content;
    const bytes = content === null ? null : Buffer.from(content, 'utf8');
    return { op: s.op, path: s.path, size: bytes?.length ?? 0, sha256: bytes ? sha(bytes) : null, content, previousSha256: prev ? sha(prev) : null };
  });
  return sealPlan(operations, { sources: sourcePaths.map((p) => planSource(p, bytesOf(p))) });
}

/**
 * The repository's built dist/ (for child processes that import the built code). `npm test`
 * builds first; run directly, vitest needs a build made beforehand.
 */
export function builtDist(): string {
  const dist = path.join(REPO, 'dist');
  if (!existsSync(path.join(dist, 'testing/crash.js'))) throw new Error(`${path.join(dist, 'testing/crash.js')} is missing: run npm run build (npm test does it first)`);
  return dist;
}

/** How a crash-runner child ended, and the last line it printed, parsed (null when it printed none). */
export interface RunnerResult<Out> {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: Out | null;
  stderr: string;
}

/**
 * Run test/helpers/crash-runner.mjs `mode` on `root` in a child process that imports builtDist(),
 * with `job` written to `jobFile` first. With `crashAt`, the child SIGKILLs itself at that point
 * (COPILOT_ONBOARDING_CRASH_AT); without it, no crash point is inherited. With `killAfterReadyMs`,
 * the child is sent SIGKILL that long after it printed its first line (a kill at a random moment).
 */
export function runCrashRunner<Out>(
  mode: string,
  root: string,
  job: unknown,
  opts: { jobFile: string; crashAt?: string | undefined; killAfterReadyMs?: number },
): Promise<RunnerResult<Out>> {
  const env = { ...process.env, COPILOT_ONBOARDING_DIST: builtDist() } as Record<string, string>;
  if (opts.crashAt) env.COPILOT_ONBOARDING_CRASH_AT = opts.crashAt;
  else delete env.COPILOT_ONBOARDING_CRASH_AT;
  writeFileSync(opts.jobFile, JSON.stringify(job));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO, 'test/helpers/crash-runner.mjs'), mode, root, opts.jobFile], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      const first = stdout === '';
      stdout += c.toString();
      if (first && opts.killAfterReadyMs !== undefined) setTimeout(() => child.kill('SIGKILL'), opts.killAfterReadyMs);
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const line = stdout.trim().split('\n').filter(Boolean).at(-1);
      resolve({ code, signal, out: line ? (JSON.parse(line) as Out) : null, stderr });
    });
  });
}
