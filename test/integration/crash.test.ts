/**
 * Fault injection with a real `kill -9`: a child process runs migrate (or rollback) from the
 * BUILT code with COPILOT_ONBOARDING_CRASH_AT=<point>, and SIGKILLs itself there. Then
 * recoverInterrupted runs, and the workspace (outside .copilot-state) must be byte-identical
 * to the state before the migration — or, once the journal said `done`, to the migrated
 * state — and the recovery must say which. The state record must agree with the tree: after a
 * restart (status, which recovers first), status, the rollback gate (what onboarding_rollback
 * and `copilot-onboarding rollback` resolve) and `copilot-onboarding status` all say
 * "migrated, rollback available" exactly when the tree is the migrated one. The same holds at
 * random kill moments of a process that migrates and rolls back in a loop. After recovery the
 * workspace must work normally.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalFile as journalPath } from '../../server/src/io/layout.js';
import { migrate } from '../../server/src/io/apply.js';
import { confirmMigration } from '../../server/src/testing/confirm.js';
import { recoverInterrupted } from '../../server/src/io/recovery.js';
import { rollback } from '../../server/src/io/rollback.js';
import type { Plan } from '../../server/src/schemas/plan.js';
import { workspaceStatus } from '../../server/src/app/status.js';
import { prepareRollback } from '../../server/src/app/rollback.js';
import { runCli } from '../../server/src/cli/program.js';
import { builtDist, planFromOps, runCrashRunner, treeDigest as tree, writeFileIn, type RunnerResult } from '../helpers/fixtures.js';

type RunOut = { ok: boolean; code?: string; message?: string; result?: unknown };

function run(mode: string, root: string, job: unknown, crashAt?: string, killAfterReadyMs?: number): Promise<RunnerResult<RunOut>> {
  return runCrashRunner<RunOut>(mode, root, job, {
    jobFile: path.join(path.dirname(root), `${path.basename(root)}-${mode}.json`),
    crashAt,
    ...(killAfterReadyMs !== undefined ? { killAfterReadyMs } : {}),
  });
}

async function cli(args: string[]): Promise<{ code: number; json: { ok: boolean; data?: Record<string, unknown>; error?: { code: string } } }> {
  let out = '';
  const stdout = new PassThrough();
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  const stdin = new PassThrough();
  stdin.end();
  const code = await runCli({ argv: ['node', 'copilot-onboarding', ...args], cwd: process.cwd(), env: {}, stdout, stderr: new PassThrough(), stdin, isTTY: false });
  return { code, json: JSON.parse(out) };
}

/**
 * Restart after a kill: status (which recovers first), then what every channel says. `tree` is
 * which state the files are in; `live` is the migration each channel would roll back (null:
 * none), and must be the same everywhere: the id when the tree is migrated, null when not.
 */
interface Agreement {
  tree: 'pre' | 'post' | 'other';
  recovered: string | null;
  status: string;
  statusLive: string | null;
  gateLive: string | null;
  cliStatusLive: string | null;
  cliRollbackLive: string | null;
}

async function restartAndAsk(root: string): Promise<Agreement> {
  const st = await workspaceStatus(root, 60_000);
  const now = JSON.stringify(await tree(root));
  const which = now === JSON.stringify(PRE) ? 'pre' : now === JSON.stringify(POST) ? 'post' : 'other';
  const live = (s: { lastMigration: { migrationId: string; rolledBackAt: string | null } | null; rollbackAvailable: boolean }) =>
    s.rollbackAvailable && s.lastMigration && s.lastMigration.rolledBackAt === null ? s.lastMigration.migrationId : null;
  let gateLive: string | null = null;
  try {
    gateLive = (await prepareRollback(root, undefined)).migrationId;
  } catch (e) {
    expect((e as { code?: string }).code).toBe('NO_MIGRATION');
  }
  const cs = await cli(['status', '--json', '-w', root]);
  const cr = await cli(['rollback', '--json', '-w', root]);
  // No TTY and no --yes: the CLI rollback is refused after naming the migration, or finds none.
  const cliRollbackLive = cr.json.error ? (cr.json.error.code === 'NO_MIGRATION' ? null : `error ${cr.json.error.code}`) : ((cr.json.data?.migrationId as string | undefined) ?? 'missing');
  return {
    tree: which,
    recovered: st.recovered,
    status: st.status,
    statusLive: live(st),
    gateLive,
    cliStatusLive: live(cs.json.data as never),
    cliRollbackLive,
  };
}

/** Every channel agrees with the tree. */
function expectAgree(a: Agreement, why: string): void {
  expect(a.tree, `${why}: the tree is neither the pre- nor the post-migration state`).not.toBe('other');
  if (a.tree === 'post') {
    expect(a.status, why).toBe('migrated');
    expect(a.statusLive, why).not.toBeNull();
  } else {
    expect(a.status, why).not.toBe('migrated');
    expect(a.statusLive, why).toBeNull();
  }
  expect({ gate: a.gateLive, cliStatus: a.cliStatusLive, cliRollback: a.cliRollbackLive }, why).toEqual({ gate: a.statusLive, cliStatus: a.statusLive, cliRollback: a.statusLive });
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
  // A plan modifies or deletes only files it read: each is one of its sources.
  return planFromOps(new Map(FILES.map(([p, b]) => [p, b])), SPECS, [MONO, ...SPECS.filter((s) => s.op !== 'create' && s.path !== MONO).map((s) => s.path)]);
}

let outer: string;
let PLAN: Plan;
let PRE: Record<string, string>;
let POST: Record<string, string>;
let n = 0;

async function freshWorkspace(): Promise<string> {
  const root = path.join(outer, `ws${++n}`);
  for (const [rel, bytes, mode] of FILES) await writeFileIn(root, rel, bytes, mode);
  return root;
}

beforeAll(async () => {
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
  ['staged-synced', 'pre', 'rolled-back'],
  ['renamed-1', 'pre', 'rolled-back'],
  ['renamed-2', 'pre', 'rolled-back'],
  ['renamed-3', 'pre', 'rolled-back'],
  ['renamed-4', 'pre', 'rolled-back'],
  ['deleted-1', 'pre', 'rolled-back'],
  ['dirs-synced', 'pre', 'rolled-back'],
  ['verified', 'pre', 'rolled-back'],
  ['journal-done-written', 'post', 'clean'],
  ['state-recorded', 'post', 'clean'],
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
  ['rb-state-recorded', 'pre', 'completed-rollback'],
  ['rb-journal-cleared', 'pre', 'none'],
];

describe('kill -9 at every step of migrate, then recover', () => {
  const results = new Map<string, { signal: string | null; agree: Agreement; again: string; same: boolean; after: string }>();

  beforeAll(async () => {
    await pool(MIGRATE_POINTS, 4, async ([point, expected]) => {
      const root = await freshWorkspace();
      const r = await run('migrate', root, { plan: PLAN, migrationId: `m-${point}` }, point);
      const agree = await restartAndAsk(root);
      const again = (await recoverInterrupted(root)).status;
      const same = agree.tree === expected;
      // The workspace works afterwards: migrate again (pre) or roll back (post), both ending consistent.
      let after = '';
      if (expected === 'pre') {
        await confirmMigration(root, PLAN, `again-${point}`);
        await migrate(root, PLAN, { migrationId: `again-${point}`, crashAt: () => undefined });
        after = JSON.stringify(await tree(root)) === JSON.stringify(POST) ? 'migrated' : 'wrong';
      } else {
        await rollback(root, `m-${point}`, { crashAt: () => undefined });
        after = JSON.stringify(await tree(root)) === JSON.stringify(PRE) ? 'rolled-back' : 'wrong';
      }
      if (existsSync(journalPath(root))) after += ' journal-left';
      results.set(point, { signal: r.signal, agree, again, same, after });
    });
  }, 120_000);

  it.each(MIGRATE_POINTS)('%s → killed, recovered to the %s-migration state (%s); status, rollback and the CLI agree', (point, expected, status) => {
    const r = results.get(point)!;
    expect(r.signal, `the runner was not killed at ${point}`).toBe('SIGKILL');
    expect(r.same, `workspace after recovery differs from the ${expected}-state`).toBe(true);
    expectAgree(r.agree, point);
    // status recovered first and said what it did; nothing is left for the next caller.
    if (status === 'none') expect(r.agree.recovered).toBeNull();
    if (status === 'rolled-back') expect(r.agree.recovered).toMatch(/exactly as before/);
    if (status === 'clean') expect(r.agree.recovered).toMatch(/as migrated/);
    expect(r.again).toBe('none');
    expect(r.after).toBe(expected === 'pre' ? 'migrated' : 'rolled-back');
  });
});

describe('kill -9 at every step of rollback, then recover', () => {
  const results = new Map<string, { signal: string | null; agree: Agreement; rolledBackAt: string | null; same: boolean; final: boolean }>();

  beforeAll(async () => {
    await pool(ROLLBACK_POINTS, 4, async ([point, expected]) => {
      const root = await freshWorkspace();
      await confirmMigration(root, PLAN, 'm1');
      await migrate(root, PLAN, { migrationId: 'm1', crashAt: () => undefined });
      const r = await run('rollback', root, { migrationId: 'm1' }, point);
      const agree = await restartAndAsk(root);
      const rolledBackAt = (await workspaceStatus(root, 60_000)).lastMigration?.rolledBackAt ?? null;
      const same = agree.tree === expected;
      // Running the rollback (again) always ends at the pre-migration state.
      await rollback(root, 'm1', { crashAt: () => undefined });
      const final = JSON.stringify(await tree(root)) === JSON.stringify(PRE) && !existsSync(journalPath(root));
      results.set(point, { signal: r.signal, agree, rolledBackAt, same, final });
    });
  }, 120_000);

  it.each(ROLLBACK_POINTS)('%s → killed, recovered to the %s-migration state (%s); status, rollback and the CLI agree', (point, expected, status) => {
    const r = results.get(point)!;
    expect(r.signal, `the runner was not killed at ${point}`).toBe('SIGKILL');
    expect(r.same, `workspace after recovery differs from the ${expected}-state`).toBe(true);
    expectAgree(r.agree, point);
    if (status === 'none') expect(r.agree.recovered).toBeNull();
    if (status === 'completed-rollback') expect(r.agree.recovered).toMatch(/as it was before that migration/);
    // A rolled-back tree is recorded as such: status rolled-back, rolledBackAt set (no false "rollback available").
    if (expected === 'pre') {
      expect(r.agree.status).toBe('rolled-back');
      expect(r.rolledBackAt).not.toBeNull();
    }
    expect(r.final).toBe(true);
  });
});

describe('kill -9 at random moments of a process that migrates and rolls back in a loop', () => {
  // At least 100 kills; each lands somewhere in the first migrate/rollback cycles of a fresh child.
  const KILLS = Math.max(100, Number(process.env.COPILOT_ONBOARDING_RANDOM_KILLS ?? 100));
  const seed = Number(process.env.COPILOT_ONBOARDING_KILL_SEED ?? Date.now() % 1_000_000);
  const results: Array<{ delayMs: number; signal: string | null; agree: Agreement | null; error: string | null }> = [];
  let windowMs = 0;

  beforeAll(async () => {
    // One cycle in this process sets the window the kill moments are drawn from: a child, cold and
    // on a busy machine, is several times slower, and the kills must land on both sides of a migration.
    const probe = await freshWorkspace();
    const t0 = performance.now();
    await confirmMigration(probe, PLAN, 'probe');
    await migrate(probe, PLAN, { migrationId: 'probe', crashAt: () => undefined });
    await rollback(probe, 'probe', { crashAt: () => undefined });
    windowMs = Math.max(20, Math.round(8 * (performance.now() - t0)));
    let x = seed || 1;
    const rand = () => ((x = (x * 48271) % 2147483647) / 2147483647);
    const delays = Array.from({ length: KILLS }, () => Math.floor(rand() * windowMs));
    await pool(delays, 4, async (delayMs) => {
      const root = await freshWorkspace();
      const r = await run('cycle', root, { plan: PLAN, prefix: 'loop' }, undefined, delayMs);
      try {
        results.push({ delayMs, signal: r.signal, agree: await restartAndAsk(root), error: null });
      } catch (e) {
        results.push({ delayMs, signal: r.signal, agree: null, error: (e as Error).message });
      }
    });
  }, 300_000);

  it(`after every kill the tree is exactly pre or post, and status, rollback and the CLI agree with it`, () => {
    expect(results.length).toBe(KILLS);
    for (const r of results) {
      const why = `kill ${r.delayMs} ms after start (window ${windowMs} ms, seed ${seed})`;
      expect(r.signal, why).toBe('SIGKILL');
      expect(r.error, why).toBeNull();
      expectAgree(r.agree!, why);
    }
    // The kills landed on both sides, and some mid-operation (recovery had work to do).
    expect(results.some((r) => r.agree?.tree === 'pre')).toBe(true);
    expect(results.some((r) => r.agree?.tree === 'post')).toBe(true);
    expect(results.some((r) => r.agree?.recovered !== null)).toBe(true);
  });
});

describe('kill -9 at random moments while the workspace id is created', () => {
  it('leaves the id file whole or absent, never empty or partial (a torn id made every later state record fail)', async () => {
    let x = 7;
    const delays = Array.from({ length: 60 }, () => (x = (x * 48271) % 2147483647) % 40);
    const seen: string[] = [];
    await pool(delays, 4, async (delayMs) => {
      const ws = path.join(outer, `wsid${++n}`);
      await writeFileIn(ws, 'README.md', Buffer.from('x\n'), 0o644);
      const r = await run('workspace-id', ws, {}, undefined, delayMs);
      expect(r.signal, r.stderr).toBe('SIGKILL');
      const f = path.join(ws, '.copilot-state', 'workspace-id');
      seen.push(existsSync(f) ? readFileSync(f, 'utf8') : '(absent)');
    });
    expect(seen.filter((t) => t !== '(absent)' && !/^[0-9a-f]{32}\n$/.test(t))).toEqual([]);
    expect(seen.length).toBe(60);
    // The kills landed both between a removal and a creation and after a creation.
    expect(seen).toContain('(absent)');
    expect(seen.some((t) => t !== '(absent)')).toBe(true);
  }, 300_000); // 60 child processes: the bound only stops a broken run (a loaded 2-core machine took over 60 s)
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

  it('`serve` recovers at start, before the first request: the tree and the state record are finished', async () => {
    const root = await freshWorkspace();
    await confirmMigration(root, PLAN, 'm1');
    await migrate(root, PLAN, { migrationId: 'm1', crashAt: () => undefined });
    expect((await run('rollback', root, { migrationId: 'm1' }, 'rb-restored-2')).signal).toBe('SIGKILL');
    const child = spawn(process.execPath, [path.join(builtDist(), 'index.js'), 'serve', '--workspace', root], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, COPILOT_ONBOARDING_CRASH_AT: '' } });
    let err = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (c: Buffer) => {
        err += c.toString();
        if (err.includes('serving on stdio')) resolve();
      });
      child.on('exit', () => reject(new Error(`serve exited: ${err}`)));
    });
    child.stdin.end();
    expect(err).toMatch(/recovery at start: An interrupted rollback of migration m1 was completed/);
    expect(existsSync(journalPath(root))).toBe(false);
    expect(await tree(root)).toEqual(PRE);
    const st = await workspaceStatus(root, 60_000);
    // Recovery ran at serve start; this status did nothing itself and reports that one from its trace.
    expect(st).toMatchObject({ status: 'rolled-back', pendingRecovery: null, rollbackAvailable: false });
    expect(st.recovered).toMatch(/^An interrupted rollback of migration m1 was completed.*trace \.copilot-state\/elicitation-traces\/[^ ]+-recover\.json\)$/);
    expect(st.lastMigration?.rolledBackAt).not.toBeNull();
  });

  it('a crash, then recovery in a fresh child process (as at server start)', async () => {
    const root = await freshWorkspace();
    expect((await run('migrate', root, { plan: PLAN, migrationId: 'c2' }, 'renamed-2')).signal).toBe('SIGKILL');
    const rec = await run('recover', root, {});
    expect(rec.out).toMatchObject({ ok: true, result: { status: 'rolled-back', migrationId: 'c2' } });
    expect(await tree(root)).toEqual(PRE);
  });
});
