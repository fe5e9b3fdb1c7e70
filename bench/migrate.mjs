#!/usr/bin/env node
/**
 * Case: migrate (backup + apply + verify) and rollback, from the BUILT code, on the real plan
 * that readSnapshot -> analyze -> buildPlan makes for a workspace holding the sbroenne corpus
 * file (118 KB) or the 1 MiB synthetic monolith as .github/copilot-instructions.md.
 *
 * Every round works on a fresh copy of the workspace (copying is not timed): migrate is timed,
 * then rollback is timed on the copy that migration just produced; afterwards (not timed) the
 * instructions must be back byte for byte and the created files gone. Phases come from
 * migrate's own progress callbacks: checked (lock, recovery check, stale check) / backup / apply (stage + rename) /
 * verify (fsync dirs + on-disk hashes + lossless proof) / finish (journal, sidecar sweep,
 * unlock). For rollback, the manifest read + backup load/verify is timed on its own as well.
 *
 *   npm run build && node bench/migrate.mjs [--runs 7] [--quick] [--against OTHER_DIST]
 *
 * --against: another build (e.g. main's dist/, built in a copy of main) is measured on the
 * same plan in the same rounds (interleaved), so a change is judged side by side.
 */
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { analyzePropose, CORPUS_FILES, makeWorkspace, synthetic } from './analyze-propose.mjs';
import { corpusPath, REPO_WIDE, argValue, cleanupTemp, interleave, isMain, load, median, ms, profileTop, tempDir, textTable } from './lib.mjs';

const sha = (b) => createHash('sha256').update(b).digest('hex');

/** migrate and rollback of another build (before the split of io/migration.js, they both lived there). */
async function loadOther(dist) {
  const imp = (rel) => import(pathToFileURL(path.join(path.resolve(dist), rel)).href);
  try {
    return { migrate: (await imp('io/apply.js')).migrate, rollback: (await imp('io/rollback.js')).rollback };
  } catch {
    return imp('io/migration.js');
  }
}

export async function run({ runs = 7, warmup = 1, quick = false, profile = true, against = null, log = () => {} } = {}) {
  const other = against ? await loadOther(against) : null;
  const [{ readSnapshot }, { analyze }, { buildPlan }, { migrate }, { rollback }, { readManifest, loadBackup }, { confirmMigration }] = await Promise.all([
    load('io/snapshot.js'),
    load('core/analyze.js'),
    load('core/plan.js'),
    load('io/apply.js'),
    load('io/rollback.js'),
    load('io/backup.js'),
    load('testing/confirm.js'),
  ]);
  const m = { readSnapshot, analyze, buildPlan };
  const all = [
    { id: 'sbroenne', label: 'corpus sbroenne premodular.md', text: readFileSync(corpusPath(CORPUS_FILES[0]), 'utf8') },
    { id: 'syn-1m', label: 'synthetic 1 MiB', text: synthetic(1 << 20) },
  ];
  const inputs = quick ? all.filter((x) => x.id === 'syn-1m') : all; // quick: the input with targets only
  const rows = [];
  const results = [];
  for (const input of inputs) {
    const template = makeWorkspace(input.text, 'co-bench-mig-');
    const { plan } = await analyzePropose(m, template);
    const ops = plan.operations;
    const nCreate = ops.filter((o) => o.op === 'create').length;
    const nModify = ops.filter((o) => o.op === 'modify').length;
    const copy = () => {
      const dir = tempDir('co-bench-mig-run-');
      cpSync(template, dir, { recursive: true });
      return dir;
    };
    log(`  migrate/rollback ${input.label}: ${ops.length} operations (${nCreate} create, ${nModify} modify), ${warmup} warm-up + ${runs} runs`);
    const loadTimes = [];
    // Finer phases from migrate's named crash points (a hook that only notes the time): ms between
    // consecutive points, per point (a numbered point's last occurrence), medians over the timed runs.
    const subRuns = [];
    const rbSubRuns = []; // the same for rollback's rb-* points (and 'end': journal cleared → lock released)
    let migrated = null;
    const firstCreated = ops.find((o) => o.op === 'create')?.path;
    const original = sha(readFileSync(path.join(template, REPO_WIDE)));
    const total = ops.length + 4; // migrate's progress: checked, backup, one per operation, verified, done
    const r = await interleave(
      {
        migrate: {
          setup: () => copy(),
          fn: async (root, mark) => {
            const at = {};
            const t0 = performance.now();
            await migrate(root, plan, {
              migrationId: 'bench-1',
              crashAt: (point) => {
                at[point.replace(/-\d+$/, '-N')] = performance.now() - t0;
              },
              onProgress: (step, done) => {
                if (step === 'checked') mark('checked');
                else if (step === 'backup') mark('backup');
                else if (done === total - 2) mark('apply');
                else if (step === 'verified') mark('verify');
              },
            });
            mark('finish');
            subRuns.push(at);
          },
          // Untimed for both: the manifest read + backup load and verification (rollback's first step), timed alone;
          // then the migrated copy is handed to the rollback of the same round.
          teardown: async (root) => {
            const t0 = performance.now();
            const loaded = await loadBackup(root, await readManifest(root, 'bench-1'));
            if (!loaded.ok) throw new Error(loaded.reason);
            loadTimes.push(performance.now() - t0);
            await confirmMigration(root, plan, 'bench-1'); // what the migrate gate records; rollback acts only on it
            migrated = root;
          },
        },
        ...(other ? againstContenders(other, copy, plan) : {}),
        rollback: {
          setup: () => migrated,
          fn: async (root) => {
            const at = {};
            const t0 = performance.now();
            await rollback(root, 'bench-1', {
              crashAt: (point) => {
                at[point.replace(/-\d+$/, '-N')] = performance.now() - t0;
              },
            });
            at.end = performance.now() - t0;
            rbSubRuns.push(at);
          },
          teardown: (root) => {
            if (sha(readFileSync(path.join(root, REPO_WIDE))) !== original) throw new Error('rollback did not restore the instructions byte for byte');
            if (firstCreated && existsSync(path.join(root, firstCreated))) throw new Error(`rollback left ${firstCreated}`);
            rmSync(root, { recursive: true, force: true });
          },
        },
      },
      { runs, warmup },
    );
    const stepMedians = (list) => {
      const sub = {};
      for (const at of list.slice(warmup)) {
        let prev = 0;
        for (const [point, t] of Object.entries(at).sort((a, b) => a[1] - b[1])) {
          (sub[point] ??= []).push(t - prev);
          prev = t;
        }
      }
      return Object.fromEntries(Object.entries(sub).map(([k, v]) => [k, median(v)]));
    };
    const subMedians = stepMedians(subRuns);
    const rbMedians = stepMedians(rbSubRuns);
    const subNote = (points, meds = subMedians) => points.filter((k) => k in meds).map((k) => `${k} ${ms(meds[k])}`).join(' / ');
    results.push({ id: input.id, subPhases: subMedians, rollbackSubPhases: rbMedians, label: input.label, bytes: Buffer.byteLength(input.text), operations: ops.length, nCreate, nModify, ...r, loadBackupMs: median(loadTimes.slice(warmup)) });
    const p = r.migrate.phases;
    const isTarget = input.id === 'syn-1m';
    rows.push({
      case: 'migrate (backup + apply + verify)',
      input: `${input.label} → ${ops.length} files`,
      median: r.migrate.wall,
      cpu: r.migrate.cpu,
      target: isTarget ? '≤ 400 ms' : null,
      status: isTarget ? (r.migrate.wall <= 400 ? 'PASS' : 'MISS') : 'info',
      note:
        `checked ${ms(p.checked)} / backup ${ms(p.backup)} / apply ${ms(p.apply)} / verify ${ms(p.verify)} / finish ${ms(p.finish)}` +
        ` (ms up to each crash point: ${subNote(['after-stale-check', 'journal-backing-up-written', 'backup-archive-written', 'backup-manifest-written', 'backup-verified', 'journal-applying-written', 'dirs-created', 'staged-N', 'staged-synced', 'renamed-N', 'deleted-N', 'dirs-synced', 'verified', 'journal-done-written', 'cleanup-done', 'journal-cleared'])})`,
      detail: r.migrate,
    });
    rows.push({
      case: 'rollback',
      input: `${input.label} (${ops.length} files)`,
      median: r.rollback.wall,
      cpu: r.rollback.cpu,
      target: isTarget ? '≤ 200 ms' : null,
      status: isTarget ? (r.rollback.wall <= 200 ? 'PASS' : 'MISS') : 'info',
      note:
        `of which manifest read + backup load/verify ≈ ${ms(median(loadTimes.slice(warmup)))} ms (timed separately)` +
        ` (ms up to each crash point: ${subNote(['rb-lock-acquired', 'rb-backup-verified', 'rb-journal-written', 'rb-restored-N', 'rb-removed-N', 'rb-sidecars-swept', 'rb-dirs-removed', 'rb-journal-cleared', 'end'], rbMedians)})`,
      detail: r.rollback,
    });
    if (other) {
      rows.push(
        { case: 'migrate, other build', input: `${input.label} → ${ops.length} files`, median: r.otherMigrate.wall, cpu: r.otherMigrate.cpu, target: null, status: 'info', note: `${against}, same rounds (this build ${ms(r.migrate.wall)} ms)`, detail: r.otherMigrate },
        { case: 'rollback, other build', input: `${input.label} (${ops.length} files)`, median: r.otherRollback.wall, cpu: r.otherRollback.cpu, target: null, status: 'info', note: `${against}, same rounds (this build ${ms(r.rollback.wall)} ms)`, detail: r.otherRollback },
      );
    }
    if (profile) {
      // A miss is explained by where the main thread's CPU time goes (V8 sampling profiler), 3 runs on fresh copies.
      const [mRow, rRow] = rows.slice(-2);
      if (mRow.status === 'MISS') {
        log(`  profiling migrate ${input.label} (a miss)`);
        const copies = [copy(), copy(), copy()];
        mRow.profile = await profileTop(() => migrate(copies.pop(), plan, { migrationId: 'bench-1' }), { runs: 3, top: 12 });
      }
      if (rRow.status === 'MISS') {
        log(`  profiling rollback ${input.label} (a miss)`);
        const copies = [];
        for (let k = 0; k < 3; k++) {
          const c = copy();
          await confirmMigration(c, plan, 'bench-1');
          await migrate(c, plan, { migrationId: 'bench-1' });
          copies.push(c);
        }
        rRow.profile = await profileTop(() => rollback(copies.pop(), 'bench-1'), { runs: 3, top: 12 });
      }
    }
  }
  return { rows, results };
}

/** The other build's migrate and rollback as two more contenders of the same rounds. */
function againstContenders(other, copy, plan) {
  let migrated = null;
  const noCrash = () => undefined;
  return {
    otherMigrate: { setup: () => copy(), fn: (root) => other.migrate(root, plan, { migrationId: 'bench-1', crashAt: noCrash }), teardown: (root) => (migrated = root) },
    otherRollback: { setup: () => migrated, fn: (root) => other.rollback(root, 'bench-1', { crashAt: noCrash }), teardown: (root) => rmSync(root, { recursive: true, force: true }) },
  };
}

if (isMain(import.meta.url)) {
  try {
    const argv = process.argv.slice(2);
    const { rows } = await run({ runs: Number(argValue(argv, '--runs', argv.includes('--quick') ? 3 : 7)), quick: argv.includes('--quick'), against: argValue(argv, '--against', null), log: console.log });
    console.log(textTable(['case', 'input', 'median ms', 'target', 'result', 'notes'], rows.map((r) => [r.case, r.input, ms(r.median), r.target ?? '—', r.status, r.note])));
  } finally {
    cleanupTemp();
  }
}
