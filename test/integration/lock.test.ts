/**
 * The workspace lock across real processes: concurrent acquirers, stale locks of dead
 * processes (broken exactly once even when several processes race to break them), and the
 * locks that must never be broken (live owner, another host, garbage being written).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, promises as fsp, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OnboardingError } from '../../server/src/core/errors.js';
import { acquireLock, readLock } from '../../server/src/io/lock.js';
import { lockFile as lockPath } from '../../server/src/io/layout.js';
import type { Plan } from '../../server/src/schemas/plan.js';
import { planFromOps, runCrashRunner, writeFileIn, type RunnerResult } from '../helpers/fixtures.js';

interface Out {
  ok: boolean;
  code?: string | null;
  message?: string;
  result?: { pid?: number };
}

let jobN = 0;
function run(mode: string, root: string, job: unknown): Promise<RunnerResult<Out>> {
  return runCrashRunner<Out>(mode, root, job, { jobFile: path.join(path.dirname(root), `job-${process.pid}-${++jobN}.json`) });
}

let outer: string;
let root: string;
beforeEach(async () => {
  outer = mkdtempSync(path.join(os.tmpdir(), 'co-lock-'));
  root = path.join(outer, 'ws');
  await fsp.mkdir(root);
});
afterEach(() => rmSync(outer, { recursive: true, force: true }));

const writeLock = async (content: string) => {
  await fsp.mkdir(path.dirname(lockPath(root)), { recursive: true });
  await fsp.writeFile(lockPath(root), content);
};
const lockRecord = (over: Record<string, unknown>) =>
  JSON.stringify({ pid: 1, hostname: os.hostname(), startedAt: '2026-01-01T00:00:00.000Z', owner: 'test', token: 'deadbeef', procStart: null, ...over });

/** A live process that is not us (and not our parent). */
function liveChild(): ChildProcess {
  return spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
}

/**
 * `n` processes try to take the lock at the same instant. Whoever gets it holds it until the
 * others have all finished (a release file, 10 s at most), so a process that starts late on a
 * loaded machine still meets a held lock instead of a released one.
 */
async function race(n: number): Promise<Array<Out | null>> {
  const startAt = Date.now() + 400;
  const releaseFile = path.join(outer, `release-${++jobN}`);
  const runs = Array.from({ length: n }, () => run('lock', root, { startAt, releaseFile }));
  let settled = 0;
  await new Promise<void>((resolve) => {
    for (const r of runs) {
      void r.finally(() => {
        if (++settled === n - 1) resolve();
      });
    }
  });
  await fsp.writeFile(releaseFile, '');
  return (await Promise.all(runs)).map((r) => r.out);
}

describe('two processes', () => {
  it('acquiring at the same instant: exactly one gets the lock, the other is told BUSY (5 rounds)', async () => {
    for (let round = 0; round < 5; round++) {
      const outs = await race(2);
      expect(outs.filter((o) => o?.ok).length, JSON.stringify(outs)).toBe(1);
      const loser = outs.find((o) => !o?.ok)!;
      expect(loser.code).toBe('BUSY');
      const winner = outs.find((o) => o?.ok)!;
      expect(loser.message).toContain(`pid ${winner.result!.pid}`);
      expect(loser.message).toMatch(/^Another migration or rollback is running on this workspace \(pid \d+, since \d{4}-.+\)\. Nothing was changed\. Wait for it to finish, then try again\.$/);
      expect(existsSync(lockPath(root))).toBe(false);
    }
  });

  it('a lock left by a process killed with SIGKILL is stale and broken', async () => {
    const dead = await run('lock', root, { die: true });
    expect(dead.signal).toBe('SIGKILL');
    const left = await readLock(root);
    expect(left?.pid).toBe(dead.out?.result?.pid);
    const lock = await acquireLock(root, { owner: 'after the crash' });
    expect((await readLock(root))?.token).toBe(lock.info.token);
    await lock.release();
    expect(existsSync(lockPath(root))).toBe(false);
    // No "stale" or temp files are left behind.
    expect(await fsp.readdir(path.dirname(lockPath(root)))).toEqual([]);
  });

  it('several processes racing to break the same stale lock: exactly one wins', async () => {
    for (let round = 0; round < 3; round++) {
      const dead = await run('lock', root, { die: true });
      expect(dead.signal).toBe('SIGKILL');
      const outs = await race(4);
      expect(outs.filter((o) => o?.ok).length, JSON.stringify(outs)).toBe(1);
      expect(outs.filter((o) => o?.code === 'BUSY').length).toBe(3);
    }
  });
});

describe('locks that are never broken', () => {
  it('a live owner (this process, or another live process)', async () => {
    const mine = await acquireLock(root, { owner: 'first' });
    const err = await acquireLock(root, { owner: 'second' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OnboardingError);
    expect(err).toMatchObject({ code: 'BUSY', details: { pid: process.pid, owner: 'first' } });
    await mine.release();
    await mine.release(); // twice is harmless

    const child = liveChild();
    try {
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      const procStart = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
      await writeLock(lockRecord({ pid: child.pid, procStart }));
      await expect(acquireLock(root, { owner: 'x' })).rejects.toMatchObject({ code: 'BUSY' });
      // Same pid but another start time: the pid was reused by an unrelated process → stale.
      await writeLock(lockRecord({ pid: child.pid, procStart: '1' }));
      const l = await acquireLock(root, { owner: 'x' });
      await l.release();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('a lock from another host, even with a pid that is dead here', async () => {
    await writeLock(lockRecord({ pid: 999_999_999, hostname: 'another-machine' }));
    await expect(acquireLock(root, { owner: 'x' })).rejects.toMatchObject({ code: 'BUSY', message: expect.stringMatching(/on another-machine/) });
  });

  it('an unreadable lock is "being written" while fresh, garbage when old', async () => {
    await writeLock('');
    await expect(acquireLock(root, { owner: 'x' })).rejects.toMatchObject({ code: 'BUSY' });
    const old = new Date(Date.now() - 60_000);
    await fsp.utimes(lockPath(root), old, old);
    const l = await acquireLock(root, { owner: 'x' });
    await l.release();
  });

  it('a dead pid on this host is stale', async () => {
    const child = liveChild();
    const pid = child.pid!;
    await new Promise<void>((r) => {
      child.on('exit', () => r());
      child.kill('SIGKILL');
    });
    await writeLock(lockRecord({ pid }));
    const l = await acquireLock(root, { owner: 'x' });
    expect((await readLock(root))?.owner).toBe('x');
    await l.release();
  });

  it('release never removes a lock that is no longer ours', async () => {
    const l = await acquireLock(root, { owner: 'x' });
    await fsp.rm(lockPath(root));
    await writeLock(lockRecord({ pid: process.pid, token: 'someone-else' }));
    await l.release();
    expect(existsSync(lockPath(root))).toBe(true);
  });
});

describe('two migrations at once, in two processes', () => {
  const MONO = '.github/copilot-instructions.md';
  const BYTES = Buffer.from('# Rules\n\n## TypeScript\n- strict\n');
  function plan(): Plan {
    const content = '# Rules\n\n';
    const ts = '---\napplyTo: "**/*.ts"\n---\n## TypeScript\n- strict\n';
    return planFromOps(
      new Map([[MONO, BYTES]]),
      [
        { op: 'modify', path: MONO, content },
        { op: 'create', path: '.github/instructions/ts.instructions.md', content: ts },
      ],
      [MONO],
    );
  }

  afterAll(() => undefined);

  it('one applies, the other is refused (busy, or stale once the first is done) and changes nothing', async () => {
    await writeFileIn(root, MONO, BYTES);
    const p = plan();
    const startAt = Date.now() + 500;
    const outs = (await Promise.all(['a', 'b'].map((id) => run('migrate-at', root, { plan: p, migrationId: id, startAt })))).map((r) => r.out!);
    expect(outs.filter((o) => o.ok).length, JSON.stringify(outs)).toBe(1);
    expect(['BUSY', 'PLAN_STALE']).toContain(outs.find((o) => !o.ok)!.code);
    expect(await fsp.readFile(path.join(root, MONO), 'utf8')).toBe('# Rules\n\n');
    const backups = (await fsp.readdir(path.join(root, '.copilot-state', 'backups'))).filter((f) => f.endsWith('.tar.gz'));
    expect(backups).toHaveLength(1);
  });
});
