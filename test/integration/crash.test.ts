/**
 * Fault injection with a real `kill -9`: a child process runs migrate (or rollback) from the
 * BUILT code with COPILOT_ONBOARDING_CRASH_AT=<point>, and SIGKILLs itself there. Then
 * recoverInterrupted runs, and the workspace (outside .copilot-state) must be byte-identical
 * to the state before the migration — or, once the journal said `done`, to the migrated
 * state — and the recovery must say which. After recovery the workspace must work normally.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, promises as fsp, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../server/src/core/canonical.js';
import { journalPath } from '../../server/src/io/journal.js';
import { migrate, recoverInterrupted, rollback } from '../../server/src/io/migration.js';
import type { Plan } from '../../server/src/schemas/plan.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const RUNNER = path.join(REPO, 'test/helpers/crash-runner.mjs');
const sha = (b: string | Uint8Array) => createHash('sha256').update(b).digest('hex');

/**
 * The built modules the runner imports: $COPILOT_ONBOARDING_DIST, else dist/ when it is newer
 * than the sources (`npm test` builds first), else a private compile of io/migration.ts and
 * its imports (so other people's half-written files cannot break this suite).
 */
async function builtDir(): Promise<string> {
  const fromEnv = process.env.COPILOT_ONBOARDING_DIST;
  if (fromEnv) return fromEnv;
  // Fresh = every module under core/, io/ and schemas/ has a built file at least as new as its source.
  const mods = ['core', 'io', 'schemas'].flatMap((d) =>
    readdirSync(path.join(REPO, 'server/src', d))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `${d}/${f.slice(0, -3)}`),
  );
  const fresh = mods.every((m) => {
    const js = path.join(REPO, 'dist', `${m}.js`);
    return existsSync(js) && statSync(js).mtimeMs >= statSync(path.join(REPO, 'server/src', `${m}.ts`)).mtimeMs;
  });
  if (fresh) return path.join(REPO, 'dist');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'co-build-'));
  writeFileSync(
    path.join(tmp, 'tsconfig.json'),
    JSON.stringify({
      extends: path.join(REPO, 'tsconfig.json'),
      compilerOptions: { rootDir: path.join(REPO, 'server/src'), outDir: path.join(tmp, 'dist'), sourceMap: false, typeRoots: [path.join(REPO, 'node_modules/@types')] },
      include: [],
      files: [path.join(REPO, 'server/src/io/migration.ts')],
    }),
  );
  symlinkSync(path.join(REPO, 'node_modules'), path.join(tmp, 'node_modules'));
  await promisify(execFile)(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', path.join(tmp, 'tsconfig.json')]).catch((e: { stdout?: string }) => {
    // Type errors still emit JavaScript; only a missing output is fatal.
    if (!existsSync(path.join(tmp, 'dist/io/migration.js'))) throw new Error(`could not compile io/migration.ts: ${e.stdout ?? e}`);
  });
  return path.join(tmp, 'dist');
}

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: { ok: boolean; code?: string; message?: string; result?: unknown } | null;
  stderr: string;
}

let DIST = '';
function run(mode: string, root: string, job: unknown, crashAt?: string): Promise<RunResult> {
  const jobFile = path.join(path.dirname(root), `${path.basename(root)}-${mode}.json`);
  writeFileSync(jobFile, JSON.stringify(job));
  return new Promise((resolve, reject) => {
    const env = { ...process.env, COPILOT_ONBOARDING_DIST: DIST } as Record<string, string>;
    if (crashAt) env.COPILOT_ONBOARDING_CRASH_AT = crashAt;
    else delete env.COPILOT_ONBOARDING_CRASH_AT;
    const child = spawn(process.execPath, [RUNNER, mode, root, jobFile], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const line = stdout.trim().split('\n').filter(Boolean).at(-1);
      resolve({ code, signal, out: line ? JSON.parse(line) : null, stderr });
    });
  });
}

/** Every file and folder outside .copilot-state, with mode and content hash. */
async function tree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(dir: string): Promise<void> {
    for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
      if (e.name === '.copilot-state') continue;
      const abs = path.join(dir, e.name);
      const rel = path.relative(root, abs).split(path.sep).join('/');
      const st = await fsp.lstat(abs);
      if (e.isDirectory()) {
        out[`${rel}/`] = `${(st.mode & 0o7777).toString(8)} dir`;
        await walk(abs);
      } else out[rel] = `${(st.mode & 0o7777).toString(8)} ${sha(await fsp.readFile(abs))}`;
    }
  }
  await walk(root);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

// ---- the scenario: one monolith split in three, one more file modified, one deleted -------------
const MONO = '.github/copilot-instructions.md';
const MONO_BYTES = Buffer.from('\uFEFF# Orders\r\n\r\n## TypeScript\r\n- strict 严格\r\n\r\n## Testing\r\n- vitest\r\n\r\n## Talk\r\n- English\r\n', 'utf8');
const FILES: Array<[string, Buffer, number]> = [
  [MONO, MONO_BYTES, 0o640],
  ['.github/legacy.md', Buffer.from('legacy\n'), 0o600],
  ['.github/instructions/existing.instructions.md', Buffer.from('---\napplyTo: "**"\n---\nold\n'), 0o644],
  ['src/orders.ts', Buffer.from('export {};\n'), 0o644],
];
const SPECS = [
  { op: 'modify', path: MONO, content: '\uFEFF# Orders\r\n\r\n## Talk\r\n- English\r\n' },
  { op: 'create', path: '.github/instructions/typescript.instructions.md', content: '---\napplyTo: "**/*.ts"\n---\n## TypeScript\r\n- strict 严格\r\n\r\n' },
  { op: 'create', path: '.github/instructions/testing/unit.instructions.md', content: '---\napplyTo: "**/*.test.ts"\n---\n## Testing\r\n- vitest\r\n\r\n' },
  { op: 'modify', path: '.github/instructions/existing.instructions.md', content: '---\napplyTo: "**"\n---\nnew\n' },
  { op: 'delete', path: '.github/legacy.md' },
] as const;

function buildPlan(): Plan {
  const before = new Map(FILES.map(([p, b]) => [p, b]));
  const operations = SPECS.map((s) => {
    const content = s.op === 'delete' ? null : s.content;
    const bytes = content === null ? null : Buffer.from(content, 'utf8');
    const prev = s.op === 'create' ? null : before.get(s.path)!;
    return { op: s.op, path: s.path, size: bytes?.length ?? 0, sha256: bytes ? sha(bytes) : null, content, previousSha256: prev ? sha(prev) : null };
  });
  const body = {
    format: 'copilot-onboarding/plan@1' as const,
    pattern: 'structured' as const,
    sources: [{ path: MONO, kind: 'copilot-repo', size: MONO_BYTES.length, sha256: sha(MONO_BYTES) }],
    sections: [],
    operations,
    problems: [],
    risk: 'low' as const,
    riskReasons: [],
    overrides: [],
    lossless: { outputs: [], coveredSources: [], ok: true },
  };
  const hash = sha(canonicalJson(body));
  return { ...body, planId: hash.slice(0, 16), sha256: hash };
}

let outer: string;
let PLAN: Plan;
let PRE: Record<string, string>;
let POST: Record<string, string>;
let n = 0;

async function freshWorkspace(): Promise<string> {
  const root = path.join(outer, `ws${++n}`);
  for (const [rel, bytes, mode] of FILES) {
    await fsp.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await fsp.writeFile(path.join(root, rel), bytes);
    await fsp.chmod(path.join(root, rel), mode);
  }
  return root;
}

beforeAll(async () => {
  DIST = await builtDir();
  outer = mkdtempSync(path.join(os.tmpdir(), 'co-crash-'));
  PLAN = buildPlan();
  const a = await freshWorkspace();
  PRE = await tree(a);
  await migrate(a, PLAN, { migrationId: 'ref', crashAt: () => undefined });
  POST = await tree(a);
  expect(POST).not.toEqual(PRE);
}, 60_000);
afterAll(() => rmSync(outer, { recursive: true, force: true }));

/** Run `fn` over `items`, `limit` at a time. */
async function pool<T>(items: T[], limit: number, fn: (t: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: limit }, async () => {
    for (let t = queue.shift(); t !== undefined; t = queue.shift()) await fn(t);
  }));
}

// Where each migrate crash point must leave the workspace once recovered, and what recovery says.
const MIGRATE_POINTS: Array<[string, 'pre' | 'post', string]> = [
  ['lock-acquired', 'pre', 'none'],
  ['after-stale-check', 'pre', 'none'],
  ['journal-backing-up-written', 'pre', 'rolled-back'],
  ['backup-archive-written', 'pre', 'rolled-back'],
  ['backup-manifest-written', 'pre', 'rolled-back'],
  ['backup-verified', 'pre', 'rolled-back'],
  ['journal-applying-written', 'pre', 'rolled-back'],
  ['dirs-created', 'pre', 'rolled-back'],
  ['staged-1', 'pre', 'rolled-back'],
  ['staged-4', 'pre', 'rolled-back'],
  ['renamed-1', 'pre', 'rolled-back'],
  ['renamed-2', 'pre', 'rolled-back'],
  ['renamed-3', 'pre', 'rolled-back'],
  ['renamed-4', 'pre', 'rolled-back'],
  ['deleted-1', 'pre', 'rolled-back'],
  ['dirs-synced', 'pre', 'rolled-back'],
  ['verified', 'pre', 'rolled-back'],
  ['journal-done-written', 'post', 'clean'],
  ['cleanup-done', 'post', 'clean'],
  ['journal-cleared', 'post', 'none'],
];

// Rollback crash points: before its journal exists the rollback has not begun (workspace still
// migrated; running the rollback again finishes the job); from then on recovery completes it.
const ROLLBACK_POINTS: Array<[string, 'pre' | 'post', string]> = [
  ['rb-lock-acquired', 'post', 'none'],
  ['rb-backup-verified', 'post', 'none'],
  ['rb-journal-written', 'pre', 'completed-rollback'],
  ['rb-restored-1', 'pre', 'completed-rollback'],
  ['rb-restored-2', 'pre', 'completed-rollback'],
  ['rb-restored-3', 'pre', 'completed-rollback'],
  ['rb-removed-1', 'pre', 'completed-rollback'],
  ['rb-removed-2', 'pre', 'completed-rollback'],
  ['rb-sidecars-swept', 'pre', 'completed-rollback'],
  ['rb-dirs-removed', 'pre', 'completed-rollback'],
  ['rb-journal-cleared', 'pre', 'none'],
];

describe('kill -9 at every step of migrate, then recover', () => {
  const results = new Map<string, { signal: string | null; status: string; message: string; same: boolean; after: string }>();

  beforeAll(async () => {
    await pool(MIGRATE_POINTS, 4, async ([point, expected]) => {
      const root = await freshWorkspace();
      const r = await run('migrate', root, { plan: PLAN, migrationId: `m-${point}` }, point);
      const rec = await recoverInterrupted(root);
      const now = await tree(root);
      const same = JSON.stringify(now) === JSON.stringify(expected === 'pre' ? PRE : POST);
      // The workspace works afterwards: migrate again (pre) or roll back (post), both ending consistent.
      let after = '';
      if (expected === 'pre') {
        await migrate(root, PLAN, { migrationId: `again-${point}`, crashAt: () => undefined });
        after = JSON.stringify(await tree(root)) === JSON.stringify(POST) ? 'migrated' : 'wrong';
      } else {
        await rollback(root, `m-${point}`, { crashAt: () => undefined });
        after = JSON.stringify(await tree(root)) === JSON.stringify(PRE) ? 'rolled-back' : 'wrong';
      }
      if (existsSync(journalPath(root))) after += ' journal-left';
      results.set(point, { signal: r.signal, status: rec.status, message: rec.message, same, after });
    });
  }, 60_000);

  it.each(MIGRATE_POINTS)('%s → killed, recovered to the %s-migration state (%s)', (point, expected, status) => {
    const r = results.get(point)!;
    expect(r.signal, `the runner was not killed at ${point}`).toBe('SIGKILL');
    expect(r.status).toBe(status);
    expect(r.same, `workspace after recovery differs from the ${expected}-state`).toBe(true);
    if (status === 'rolled-back') expect(r.message).toMatch(/exactly as before/);
    if (status === 'clean') expect(r.message).toMatch(/as migrated/);
    expect(r.after).toBe(expected === 'pre' ? 'migrated' : 'rolled-back');
  });
});

describe('kill -9 at every step of rollback, then recover', () => {
  const results = new Map<string, { signal: string | null; status: string; message: string; same: boolean; final: boolean }>();

  beforeAll(async () => {
    await pool(ROLLBACK_POINTS, 4, async ([point, expected]) => {
      const root = await freshWorkspace();
      await migrate(root, PLAN, { migrationId: 'm1', crashAt: () => undefined });
      const r = await run('rollback', root, { migrationId: 'm1' }, point);
      const rec = await recoverInterrupted(root);
      const same = JSON.stringify(await tree(root)) === JSON.stringify(expected === 'pre' ? PRE : POST);
      // Running the rollback (again) always ends at the pre-migration state.
      await rollback(root, 'm1', { crashAt: () => undefined });
      const final = JSON.stringify(await tree(root)) === JSON.stringify(PRE) && !existsSync(journalPath(root));
      results.set(point, { signal: r.signal, status: rec.status, message: rec.message, same, final });
    });
  }, 60_000);

  it.each(ROLLBACK_POINTS)('%s → killed, recovered to the %s-migration state (%s)', (point, expected, status) => {
    const r = results.get(point)!;
    expect(r.signal, `the runner was not killed at ${point}`).toBe('SIGKILL');
    expect(r.status).toBe(status);
    expect(r.same, `workspace after recovery differs from the ${expected}-state`).toBe(true);
    if (status === 'completed-rollback') expect(r.message).toMatch(/as it was before that migration/);
    expect(r.final).toBe(true);
  });
});

describe('the runner without a crash point', () => {
  it('migrates and rolls back normally in a child process; recovery in a child process finds nothing', async () => {
    const root = await freshWorkspace();
    const m = await run('migrate', root, { plan: PLAN, migrationId: 'child' });
    expect(m.out, m.stderr).toMatchObject({ ok: true, result: { migrationId: 'child', verified: true } });
    expect(await tree(root)).toEqual(POST);
    const r = await run('rollback', root, { migrationId: 'child' });
    expect(r.out, r.stderr).toMatchObject({ ok: true });
    expect(await tree(root)).toEqual(PRE);
    expect((await run('recover', root, {})).out).toMatchObject({ ok: true, result: { status: 'none' } });
  });

  it('a crash, then recovery in a fresh child process (as at server start)', async () => {
    const root = await freshWorkspace();
    expect((await run('migrate', root, { plan: PLAN, migrationId: 'c2' }, 'renamed-2')).signal).toBe('SIGKILL');
    const rec = await run('recover', root, {});
    expect(rec.out).toMatchObject({ ok: true, result: { status: 'rolled-back', migrationId: 'c2' } });
    expect(await tree(root)).toEqual(PRE);
  });
});
