/**
 * Fault injection with a real `kill -9`: a child process runs migrate (or rollback) from the
 * BUILT code with COPILOT_ONBOARDING_CRASH_AT=<point>, and SIGKILLs itself there. Then
 * recoverInterrupted runs, and the workspace (outside .copilot-state) must be byte-identical
 * to the state before the migration — or, once the journal said `done`, to the migrated
 * state — and the recovery must say which. After recovery the workspace must work normally.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalPath } from '../../server/src/io/journal.js';
import { migrate } from '../../server/src/io/apply.js';
import { recoverInterrupted } from '../../server/src/io/recovery.js';
import { rollback } from '../../server/src/io/rollback.js';
import type { Plan } from '../../server/src/schemas/plan.js';
import { planFromOps, runCrashRunner, treeDigest as tree, writeFileIn, type RunnerResult } from '../helpers/fixtures.js';

type RunOut = { ok: boolean; code?: string; message?: string; result?: unknown };

function run(mode: string, root: string, job: unknown, crashAt?: string): Promise<RunnerResult<RunOut>> {
  return runCrashRunner<RunOut>(mode, root, job, { jobFile: path.join(path.dirname(root), `${path.basename(root)}-${mode}.json`), crashAt });
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
