/**
 * migrate / rollback / editedSinceMigration / recoverInterrupted on real temp workspaces.
 * The central property: migrate followed by rollback is the identity on the workspace
 * (bytes, modes and folders), for generated workspaces and plans.
 */
import { existsSync, mkdirSync, mkdtempSync, promises as fsp, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backupRelPaths, readManifest } from '../../server/src/io/backup.js';
import { writeJournal } from '../../server/src/io/journal.js';
import { journalFile as journalPath } from '../../server/src/io/layout.js';
import { acquireLock } from '../../server/src/io/lock.js';
import { migrate, type OutputVerifier } from '../../server/src/io/apply.js';
import { pendingRecovery, recoverInterrupted } from '../../server/src/io/recovery.js';
import { loadState } from '../../server/src/io/state.js';
import { editedSinceMigration, rollback } from '../../server/src/io/rollback.js';
import type { Plan } from '../../server/src/schemas/plan.js';
import { confirmMigration } from '../../server/src/testing/confirm.js';
import { planFromOps, sealPlan, sha, treeDigest as tree, writeFileIn as write, type OpSpec } from '../helpers/fixtures.js';
import { runs } from '../helpers/runs.js';

/**
 * migrate after recording the person's confirmation, as the migrate gate does before it starts:
 * rollback and recovery act only on a migration whose confirmation authenticates (io/migration-record).
 */
async function migrateConfirmed(root: string, plan: Plan, opts: Parameters<typeof migrate>[2]): ReturnType<typeof migrate> {
  await confirmMigration(root, plan, opts.migrationId);
  return migrate(root, plan, opts);
}

const tempDir = (prefix: string) => mkdtempSync(path.join(os.tmpdir(), prefix));

/** The verify callback must see the original sources and exactly the planned outputs. */
function checkingVerifier(plan: Plan, before: Map<string, Uint8Array>): OutputVerifier & { calls: number } {
  const v = Object.assign(
    (sources: Map<string, Uint8Array>, outputs: Map<string, Uint8Array | null>) => {
      v.calls++;
      const errors: string[] = [];
      for (const s of plan.sources) if (sha(sources.get(s.path) ?? new Uint8Array()) !== sha(before.get(s.path)!)) errors.push(`source ${s.path}`);
      if (outputs.size !== plan.operations.length) errors.push('outputs size');
      for (const op of plan.operations) {
        const o = outputs.get(op.path);
        if (op.op === 'delete' ? o !== null : o === null || o === undefined || Buffer.from(o).toString('utf8') !== op.content) errors.push(`output ${op.path}`);
      }
      return { ok: errors.length === 0, errors };
    },
    { calls: 0 },
  );
  return v;
}

const MONO = '.github/copilot-instructions.md';

// ---------------------------------------------------------------------------------------------
describe('migrate then rollback is the identity (property, generated workspaces)', () => {
  const chars = fc.constantFrom('a', 'b', 'Z', ' ', '-', '`', '#', '*', '严', '格', '🙂', 'é', '\t', '\u00a0');
  const line = fc.array(chars, { maxLength: 24 }).map((a) => a.join(''));
  const text = fc
    .tuple(fc.boolean(), fc.array(fc.tuple(line, fc.constantFrom('\n', '\r\n')), { minLength: 0, maxLength: 12 }), fc.boolean())
    .map(([bom, lines, lastEol]) => {
      const s = lines.map(([l, e]) => l + e).join('');
      return (bom ? '\uFEFF' : '') + (lastEol ? s : s.replace(/\r?\n$/, ''));
    });
  const mode = fc.constantFrom(0o644, 0o600, 0o755, 0o640, 0o444);
  const scenario = fc.record({
    mono: fc.oneof(text.map((t) => Buffer.from(t, 'utf8')), fc.uint8Array({ maxLength: 300 }).map((u) => Buffer.from(u))),
    monoMode: mode,
    newMono: fc.option(text, { nil: null }),
    extras: fc.uniqueArray(
      fc.record({
        dir: fc.constantFrom('.github', '.github/instructions', 'docs', 'docs/deep'),
        name: fc.constantFrom('a.md', 'b.md', 'notes.txt', 'c.instructions.md'),
        bytes: fc.uint8Array({ maxLength: 200 }),
        mode,
        action: fc.constantFrom('delete', 'modify', 'keep'),
        content: text,
      }),
      { selector: (e) => `${e.dir}/${e.name}`, maxLength: 5 },
    ),
    creates: fc.uniqueArray(
      fc.record({ sub: fc.constantFrom('', 'nested/', 'deep/er/'), slug: fc.constantFrom('ts', 'testing', 'react', 'py', 'ci', 'x-y', '严格'), content: text }),
      { selector: (c) => `${c.sub}${c.slug}`, maxLength: 6 },
    ),
  });

  it('restores bytes, modes and folders exactly (60 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (sc) => {
        const root = tempDir('co-prop-');
        try {
          const before = new Map<string, Uint8Array>();
          await write(root, MONO, sc.mono, sc.monoMode);
          before.set(MONO, sc.mono);
          await write(root, 'src/index.ts', 'export const x = 1;\n');
          for (const e of sc.extras) {
            await write(root, `${e.dir}/${e.name}`, e.bytes, e.mode);
            before.set(`${e.dir}/${e.name}`, e.bytes);
          }
          const specs: OpSpec[] = [];
          if (sc.newMono !== null) specs.push({ op: 'modify', path: MONO, content: sc.newMono });
          for (const e of sc.extras) {
            if (e.action === 'delete') specs.push({ op: 'delete', path: `${e.dir}/${e.name}` });
            if (e.action === 'modify') specs.push({ op: 'modify', path: `${e.dir}/${e.name}`, content: e.content });
          }
          // A plan modifies or deletes only files it read: each is one of its sources.
          const read = [MONO, ...specs.filter((s) => s.op !== 'create' && s.path !== MONO).map((s) => s.path)];
          for (const c of sc.creates) specs.push({ op: 'create', path: `.github/instructions/${c.sub}${c.slug}.instructions.md`, content: c.content });
          fc.pre(specs.length > 0);
          const plan = planFromOps(before, specs, read);
          const pre = await tree(root);
          const verify = checkingVerifier(plan, before);

          const result = await migrateConfirmed(root, plan, { migrationId: 'm-prop', verify });
          expect(verify.calls).toBe(1);
          expect(result.verified).toBe(true);
          // The post-state is the plan, byte for byte; modified files keep their mode.
          const post = await tree(root);
          for (const op of plan.operations) {
            if (op.op === 'delete') expect(post[op.path]).toBeUndefined();
            else expect(post[op.path]?.split(' ')[1]).toBe(op.sha256);
            if (op.op === 'modify') expect(post[op.path]?.split(' ')[0]).toBe(pre[op.path]?.split(' ')[0]);
          }
          expect(await editedSinceMigration(root, await readManifest(root, 'm-prop'))).toEqual([]);
          await fsp.access(journalPath(root)).then(
            () => expect.fail('journal left behind'),
            () => undefined,
          );

          await rollback(root, 'm-prop');
          expect(await tree(root)).toEqual(pre);
          // Idempotent.
          const again = await rollback(root, 'm-prop');
          expect(again.restored).toEqual([]);
          expect(again.removed).toEqual([]);
          expect(await tree(root)).toEqual(pre);
          expect((await recoverInterrupted(root)).status).toBe('none');
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: runs(60) },
    );
  });
});

// ---------------------------------------------------------------------------------------------
describe('the default on-disk check is the plan\'s lossless proof (core/plan.ts verifyLossless)', () => {
  /**
   * A real split: the monolith's bytes cut into chunks, each chunk placed (in order) in the
   * monolith or in one of the created files after generated front matter, with the pieces
   * recorded exactly as the planner records them.
   */
  function splitPlan(mono: Buffer, cuts: number[], targets: number[], nFiles: number, dropPiece: boolean): Plan {
    const bounds = [0, ...[...new Set(cuts.map((c) => c % (mono.length + 1)))].sort((a, b) => a - b), mono.length].filter((v, i, a) => i === 0 || v !== a[i - 1]);
    const outs = Array.from({ length: nFiles + 1 }, (_, i) => ({
      path: i === 0 ? MONO : `.github/instructions/part-${i}.instructions.md`,
      bytes: i === 0 ? Buffer.alloc(0) : Buffer.from(`---\napplyTo: "**/*.ts"\n---\n`),
      pieces: [] as Array<{ sourcePath: string; sourceStart: number; sourceEnd: number; outputStart: number; outputEnd: number }>,
      generated: [] as Array<{ outputStart: number; outputEnd: number; what: 'front-matter' }>,
    }));
    for (const o of outs) if (o.bytes.length) o.generated.push({ outputStart: 0, outputEnd: o.bytes.length, what: 'front-matter' });
    for (let i = 0; i + 1 < bounds.length; i++) {
      const o = outs[targets[i % targets.length]! % outs.length]!;
      const chunk = mono.subarray(bounds[i]!, bounds[i + 1]!);
      o.pieces.push({ sourcePath: MONO, sourceStart: bounds[i]!, sourceEnd: bounds[i + 1]!, outputStart: o.bytes.length, outputEnd: o.bytes.length + chunk.length });
      o.bytes = Buffer.concat([o.bytes, chunk]);
    }
    const used = outs.filter((o, i) => i === 0 || o.pieces.length > 0);
    // Mutant: one output loses its last piece's bytes while the pieces still claim them.
    if (dropPiece) {
      const victim = used.find((o) => o.pieces.some((p) => p.sourceEnd > p.sourceStart));
      const last = victim?.pieces.filter((p) => p.sourceEnd > p.sourceStart).at(-1);
      if (victim && last) victim.bytes = Buffer.concat([victim.bytes.subarray(0, last.outputStart), victim.bytes.subarray(last.outputEnd)]);
    }
    const specs: OpSpec[] = used.map((o, i) => ({ op: i === 0 ? 'modify' : 'create', path: o.path, content: o.bytes.toString('utf8') }));
    const { planId: _id, sha256: _sha, operations, ...body } = planFromOps(new Map([[MONO, mono]]), specs, [MONO]);
    // Sealed with its lossless proof, as the planner seals it (rollback re-reads the stored plan).
    return sealPlan(operations, { ...body, lossless: { outputs: used.map((o) => ({ path: o.path, pieces: o.pieces, generated: o.generated })), coveredSources: [MONO], ok: true } });
  }

  // Whole code points only (cut positions are byte offsets on an ASCII/CRLF text, so chunks stay valid UTF-8).
  const asciiText = fc.array(fc.constantFrom('a', 'b', ' ', '#', '-', '\n', '\r\n', '`'), { minLength: 1, maxLength: 200 }).map((a) => Buffer.from(a.join('')));
  const arb = fc.record({
    mono: asciiText,
    cuts: fc.array(fc.nat(400), { maxLength: 8 }),
    targets: fc.array(fc.nat(5), { minLength: 1, maxLength: 8 }),
    nFiles: fc.integer({ min: 1, max: 4 }),
  });

  it('a lossless split passes; a split that drops bytes is refused and undone (30 runs each)', async () => {
    await fc.assert(
      fc.asyncProperty(arb, fc.boolean(), async (sc, drop) => {
        const plan = splitPlan(sc.mono, sc.cuts, sc.targets, sc.nFiles, drop);
        const mutated = drop && plan.lossless.outputs.some((o) => o.pieces.some((p) => p.sourceEnd > p.sourceStart));
        const root = tempDir('co-lossless-');
        try {
          await write(root, MONO, sc.mono);
          const pre = await tree(root);
          const r = await migrateConfirmed(root, plan, { migrationId: 'm-l' }).then(
            () => 'ok',
            (e: { code?: string }) => e.code ?? 'error',
          );
          expect(r).toBe(mutated ? 'VERIFY_FAILED' : 'ok');
          if (mutated) expect(await tree(root)).toEqual(pre);
          else {
            await rollback(root, 'm-l');
            expect(await tree(root)).toEqual(pre);
          }
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: runs(60) },
    );
  });
});

// ---------------------------------------------------------------------------------------------
describe('migrate and rollback on a fixed workspace', () => {
  let root: string;
  const before = new Map<string, Uint8Array>();
  const MONO_BYTES = Buffer.from('\uFEFF# Orders\r\n\r\n## TypeScript\r\n- strict\r\n\r\n## Testing\r\n- vitest 测试\r\n', 'utf8');
  const OLD = '.github/old-rules.md';
  const TS = '.github/instructions/typescript.instructions.md';
  const TEST = '.github/instructions/testing.instructions.md';

  beforeEach(async () => {
    root = tempDir('co-mig-');
    await write(root, MONO, MONO_BYTES, 0o640);
    await write(root, OLD, 'old rules\n', 0o600);
    await write(root, 'src/orders.ts', 'export {};\n');
    before.clear();
    before.set(MONO, MONO_BYTES);
    before.set(OLD, Buffer.from('old rules\n'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const plan = () =>
    planFromOps(
      before,
      [
        { op: 'modify', path: MONO, content: '\uFEFF# Orders\r\n\r\n' },
        { op: 'create', path: TS, content: '---\napplyTo: "**/*.ts"\n---\n## TypeScript\r\n- strict\r\n\r\n' },
        { op: 'create', path: TEST, content: '---\napplyTo: "**/*.test.ts"\n---\n## Testing\r\n- vitest 测试\r\n' },
        { op: 'delete', path: OLD },
      ],
      [MONO, OLD],
    );

  it('returns what it wrote and where the backup is, reporting progress', async () => {
    const p = plan();
    const steps: Array<[string, number, number]> = [];
    const r = await migrate(root, p, { migrationId: 'm1', onProgress: (s, d, t) => steps.push([s, d, t]) });
    expect(r).toEqual({
      migrationId: 'm1',
      backup: { archive: '.copilot-state/backups/m1.tar.gz', manifest: '.copilot-state/backups/m1.manifest.json' },
      written: p.operations.map((o) => ({ path: o.path, op: o.op, size: o.size, sha256: o.sha256 })),
      verified: true,
    });
    await fsp.access(path.join(root, r.backup.archive));
    await fsp.access(path.join(root, r.backup.manifest));
    expect(steps.length).toBeGreaterThan(4);
    expect(steps.map((s) => s[1])).toEqual(steps.map((_, i) => i + 1));
    expect(steps.at(-1)![1]).toBe(steps.at(-1)![2]);
    // No side files or lock remain; the migration is recorded (before its journal was cleared).
    expect((await fsp.readdir(path.join(root, '.github'))).sort()).toEqual(['copilot-instructions.md', 'instructions']);
    expect((await fsp.readdir(path.join(root, '.copilot-state'))).sort()).toEqual(['backups', 'onboarding.json', 'plans', 'workspace-id']);
    expect(await loadState(root)).toMatchObject({ status: 'migrated', migrations: [{ migrationId: 'm1', planId: p.planId, rolledBackAt: null }] });
    expect(await pendingRecovery(root)).toBeNull();
  });

  it('refuses a stale plan and changes nothing', async () => {
    const p = plan();
    await fsp.appendFile(path.join(root, MONO), '\n- one more rule\n');
    const pre = await tree(root);
    const err = await migrate(root, p, { migrationId: 'm1' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'PLAN_STALE' });
    expect((err as Error).message).toMatch(/stale plan: run onboarding_propose again\. Nothing was changed\./);
    expect(await tree(root)).toEqual(pre);
    await expect(fsp.readdir(path.join(root, '.copilot-state', 'backups'))).rejects.toThrow();
    expect(await fsp.readdir(path.join(root, '.copilot-state'))).toEqual([]);
  });

  it('refuses when a deleted file changed, or a source is gone', async () => {
    const p = plan();
    await fsp.writeFile(path.join(root, OLD), 'edited');
    await expect(migrate(root, p, { migrationId: 'm1' })).rejects.toMatchObject({ code: 'PLAN_STALE' });
    await fsp.writeFile(path.join(root, OLD), 'old rules\n');
    await fsp.rm(path.join(root, MONO));
    await expect(migrate(root, p, { migrationId: 'm1' })).rejects.toMatchObject({ code: 'PLAN_STALE' });
  });

  it('refuses when a file it would create already exists, and changes nothing', async () => {
    await write(root, TEST, 'my own testing rules\n');
    const pre = await tree(root);
    await expect(migrate(root, plan(), { migrationId: 'm1' })).rejects.toMatchObject({ code: 'PLAN_STALE', message: expect.stringMatching(/testing\.instructions\.md/) });
    expect(await tree(root)).toEqual(pre);
  });

  it('refuses a plan whose content does not match its hashes, or that escapes the workspace', async () => {
    const p = plan();
    const tampered = structuredClone(p);
    tampered.operations[1]!.content = 'something else';
    await expect(migrate(root, tampered, { migrationId: 'm1' })).rejects.toMatchObject({ code: 'PLAN_CORRUPT' });
    const escaping = planFromOps(before, [{ op: 'create', path: '../escape.md', content: 'x' }]);
    await expect(migrate(root, escaping, { migrationId: 'm1' })).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    const intoState = planFromOps(before, [{ op: 'create', path: '.copilot-state/lock', content: 'x' }]);
    await expect(migrate(root, intoState, { migrationId: 'm1' })).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    await expect(migrate(root, p, { migrationId: '../m1' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('refuses to write through a symlinked folder that leads outside the workspace', async () => {
    const outside = tempDir('co-outside-');
    try {
      await fsp.symlink(outside, path.join(root, '.github', 'instructions'));
      await expect(migrate(root, plan(), { migrationId: 'm1' })).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
      expect(await fsp.readdir(outside)).toEqual([]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('refuses to reuse a migration id', async () => {
    await migrateConfirmed(root, plan(), { migrationId: 'm1' });
    await rollback(root, 'm1');
    await expect(migrate(root, plan(), { migrationId: 'm1' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('a failed on-disk check restores the workspace and says VERIFY_FAILED', async () => {
    const pre = await tree(root);
    const err = await migrate(root, plan(), { migrationId: 'm1', verify: () => ({ ok: false, errors: ['byte 17 of the TypeScript section is missing'] }) }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'VERIFY_FAILED', message: expect.stringMatching(/byte 17.*restored from the backup.*Nothing was changed/s) });
    expect(await tree(root)).toEqual(pre);
    await expect(fsp.access(journalPath(root))).rejects.toThrow();
    // The backup stays for the record; it still verifies.
    await fsp.access(path.join(root, backupRelPaths('m1').archive));
  });

  it('a verify callback that throws counts as a failure', async () => {
    const pre = await tree(root);
    await expect(
      migrate(root, plan(), {
        migrationId: 'm1',
        verify: () => {
          throw new Error('boom');
        },
      }),
    ).rejects.toMatchObject({ code: 'VERIFY_FAILED' });
    expect(await tree(root)).toEqual(pre);
  });

  it.each(['staged-1', 'renamed-2', 'deleted-1', 'dirs-synced', 'backup-manifest-written'])('an error thrown at %s is undone in-process', async (point) => {
    const pre = await tree(root);
    await expect(
      migrate(root, plan(), {
        migrationId: 'm1',
        crashAt: (p) => {
          if (p === point) throw new Error(`injected at ${p}`);
        },
      }),
    ).rejects.toThrow(/injected|Nothing was changed/);
    expect(await tree(root)).toEqual(pre);
    expect(await recoverInterrupted(root)).toMatchObject({ status: 'none' });
    // And the workspace still migrates afterwards.
    await migrate(root, plan(), { migrationId: 'm2' });
  });

  it('the in-process undo of a failed migration keeps a created file someone rewrote meanwhile (no person was asked)', async () => {
    const err = await migrate(root, plan(), {
      migrationId: 'm1',
      crashAt: (p) => {
        if (p !== 'dirs-synced') return;
        writeFileSync(path.join(root, TEST), 'written by someone while the migration ran\n');
        throw new Error('injected at dirs-synced');
      },
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ message: expect.stringMatching(/injected at dirs-synced/) });
    expect(readFileSync(path.join(root, TEST), 'utf8')).toBe('written by someone while the migration ran\n');
    expect(existsSync(path.join(root, TS))).toBe(false);
  });

  it('a backup refused because backups/ was swapped for a symlink out: the clean-up removes nothing through it', async () => {
    const outside = tempDir('co-out-');
    try {
      // Someone else's files, named like this migration's backup, in the folder the symlink leads to.
      for (const name of ['m1.tar.gz', 'm1.manifest.json', '.m1.tar.gz.tmp']) writeFileSync(path.join(outside, name), `theirs: ${name}\n`);
      const pre = await tree(root);
      const err = await migrateConfirmed(root, plan(), {
        migrationId: 'm1',
        crashAt: (p) => {
          if (p !== 'journal-backing-up-written') return;
          mkdirSync(path.join(root, '.copilot-state/backups'), { recursive: true });
          rmSync(path.join(root, '.copilot-state/backups'), { recursive: true });
          symlinkSync(outside, path.join(root, '.copilot-state/backups'));
        },
      }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
      for (const name of ['m1.tar.gz', 'm1.manifest.json', '.m1.tar.gz.tmp']) expect(readFileSync(path.join(outside, name), 'utf8')).toBe(`theirs: ${name}\n`);
      expect(await tree(root)).toEqual(pre);
      // The state folder holds an entry leading out, so nothing in it is written or removed (the journal stays);
      // once the symlink is replaced by a folder, recovery finishes: nothing had been changed.
      expect(existsSync(journalPath(root))).toBe(true);
      rmSync(path.join(root, '.copilot-state/backups'));
      mkdirSync(path.join(root, '.copilot-state/backups'));
      expect(await recoverInterrupted(root)).toMatchObject({ status: 'rolled-back', migrationId: 'm1' });
      expect(existsSync(journalPath(root))).toBe(false);
      expect(await tree(root)).toEqual(pre);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a backup refused because .copilot-state was swapped for a symlink out: the journal moved out with it is not removed there', async () => {
    const outside = tempDir('co-out-');
    const moved = path.join(outside, 'state');
    try {
      const err = await migrate(root, plan(), {
        migrationId: 'm1',
        crashAt: (p) => {
          if (p !== 'journal-backing-up-written') return;
          renameSync(path.join(root, '.copilot-state'), moved);
          symlinkSync(moved, path.join(root, '.copilot-state'));
        },
      }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
      expect(existsSync(path.join(moved, 'journal.json'))).toBe(true);
      expect(readFileSync(path.join(root, MONO))).toEqual(MONO_BYTES);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('lists the files edited since the migration, then rolls back over them', async () => {
    const pre = await tree(root);
    await migrateConfirmed(root, plan(), { migrationId: 'm1' });
    const manifest = await readManifest(root, 'm1');
    expect(await editedSinceMigration(root, manifest)).toEqual([]);
    await fsp.appendFile(path.join(root, TEST), '\n- local edit\n');
    await fsp.writeFile(path.join(root, OLD), 'recreated by someone\n');
    await fsp.rm(path.join(root, TS));
    expect(await editedSinceMigration(root, manifest)).toEqual([TS, TEST, OLD]);
    const r = await rollback(root, 'm1');
    expect(r.removed).toEqual([TEST]);
    expect(r.restored.sort()).toEqual([MONO, OLD].sort());
    expect(r.removedDirs).toEqual(['.github/instructions']);
    expect(await tree(root)).toEqual(pre);
  });

  it('rollback never removes a created file through its folder swapped for a symlink out of the workspace', async () => {
    await migrateConfirmed(root, plan(), { migrationId: 'm1' });
    const outside = tempDir('co-unlink-out-');
    try {
      const dir = path.join(root, '.github/instructions');
      await fsp.cp(dir, outside, { recursive: true });
      await fsp.rm(dir, { recursive: true });
      await fsp.symlink(outside, dir);
      await expect(rollback(root, 'm1')).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
      expect((await fsp.readdir(outside)).sort()).toEqual([path.basename(TEST), path.basename(TS)].sort());
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('leaves a created folder that now holds someone else’s file', async () => {
    await migrateConfirmed(root, plan(), { migrationId: 'm1' });
    await write(root, '.github/instructions/mine.instructions.md', 'mine');
    const r = await rollback(root, 'm1');
    expect(r.removedDirs).toEqual([]);
    expect(await fsp.readdir(path.join(root, '.github/instructions'))).toEqual(['mine.instructions.md']);
  });

  it('refuses to roll back with a corrupted backup, touching nothing', async () => {
    await migrateConfirmed(root, plan(), { migrationId: 'm1' });
    const archive = path.join(root, backupRelPaths('m1').archive);
    const bytes = await fsp.readFile(archive);
    await fsp.writeFile(archive, bytes.subarray(0, bytes.length >> 1));
    const post = await tree(root);
    await expect(rollback(root, 'm1')).rejects.toMatchObject({ code: 'BACKUP_CORRUPT', message: expect.stringMatching(/No file was touched/) });
    expect(await tree(root)).toEqual(post);
    await fsp.rm(archive);
    await expect(rollback(root, 'm1')).rejects.toMatchObject({ code: 'BACKUP_MISSING' });
    await fsp.rm(path.join(root, backupRelPaths('m1').manifest));
    await expect(rollback(root, 'm1')).rejects.toMatchObject({ code: 'BACKUP_MISSING' });
    expect(await tree(root)).toEqual(post);
    await expect(fsp.access(journalPath(root))).rejects.toThrow();
  });

  it('a plan that only creates files round-trips (empty archive)', async () => {
    const pre = await tree(root);
    const p = planFromOps(before, [{ op: 'create', path: '.github/instructions/deep/x.instructions.md', content: 'x\n' }]);
    await migrateConfirmed(root, p, { migrationId: 'm1' });
    expect((await readManifest(root, 'm1')).files).toEqual([]);
    await rollback(root, 'm1');
    expect(await tree(root)).toEqual(pre);
  });

  it('refuses while another holder has the lock', async () => {
    const lock = await acquireLock(root, { owner: 'someone' });
    try {
      const pre = await tree(root);
      await expect(migrate(root, plan(), { migrationId: 'm1' })).rejects.toMatchObject({ code: 'BUSY', message: expect.stringMatching(/Nothing was changed/) });
      await expect(rollback(root, 'm1')).rejects.toMatchObject({ code: 'BUSY' });
      expect(await tree(root)).toEqual(pre);
    } finally {
      await lock.release();
    }
  });

  it('recoverInterrupted leaves a migration that is running right now alone (busy)', async () => {
    // A migration stopped mid-apply in a process that still holds the lock (this one).
    const seen: string[] = [];
    await expect(
      migrateConfirmed(root, plan(), {
        migrationId: 'm1',
        crashAt: (p) => {
          seen.push(p);
          if (p === 'renamed-1') throw new Error('pause here');
        },
      }),
    ).rejects.toThrow();
    expect(seen).toContain('renamed-1');
    const pre = await tree(root);
    await writeJournal(root, {
      format: 'copilot-onboarding/journal@1',
      kind: 'migrate',
      phase: 'applying',
      migrationId: 'm1',
      planId: plan().planId,
      pid: process.pid,
      startedAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      ops: plan().operations.map((op) => ({ op: op.op, path: op.path, previousSha256: op.previousSha256, sha256: op.op === 'delete' ? null : op.sha256 })),
      createdDirs: ['.github/instructions'],
    });
    const lock = await acquireLock(root, { owner: 'migrate m1' });
    try {
      expect(await recoverInterrupted(root)).toMatchObject({ status: 'busy', migrationId: 'm1' });
      expect(await pendingRecovery(root)).toMatch(/is running \(pid \d+/);
      expect(await tree(root)).toEqual(pre);
    } finally {
      await lock.release();
    }
    expect(await pendingRecovery(root)).toMatch(/interrupted/);
    expect(await recoverInterrupted(root)).toMatchObject({ status: 'rolled-back', migrationId: 'm1' });
    expect(await pendingRecovery(root)).toBeNull();
  });

  it('recoverInterrupted: nothing to do, a finished journal, a corrupt journal', async () => {
    expect(await recoverInterrupted(root)).toEqual({ status: 'none', message: expect.any(String) });
    await migrate(root, plan(), { migrationId: 'm1' });
    const post = await tree(root);
    await write(root, '.copilot-state/journal.json', '{"nope":');
    await expect(recoverInterrupted(root)).rejects.toMatchObject({ code: 'STATE_CORRUPT' });
    expect(await pendingRecovery(root)).toMatch(/journal/);
    expect(await tree(root)).toEqual(post);
  });
});
