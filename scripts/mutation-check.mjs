#!/usr/bin/env node
/**
 * Mutation check: each named safety check must be killed by a test of its own. For every entry
 * of MUTANTS, the check is removed from a copy of the repository and the focused tests named
 * for it are run there; at least one of them must fail. A check whose removal leaves its tests
 * green is a promise nothing tests ("SURVIVED"), and the script exits 1.
 *
 * A check is found by a marker comment on its line, `// safety: <name>`, so the list survives
 * edits around it. The line is removed in one of two ways:
 *   - `if (cond) …` or `} else if (cond) {` : the condition becomes `false`;
 *   - any other one-line statement        : the line is commented out.
 *
 * The copy (a temp folder with the repository's files and a link to node_modules) is what is
 * mutated: the working tree is never touched, even if the script is killed. The copy runs
 * vitest without the global setup, so dist/ is neither built nor used: focused tests must
 * import server/src (a test that spawns the binary fails the baseline run, which comes first).
 *
 *   node scripts/mutation-check.mjs            every mutant
 *   node scripts/mutation-check.mjs NAME…      only these
 *   node scripts/mutation-check.mjs --list     the mutants and where their markers are
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const REPO = path.resolve(import.meta.dirname, '..');

/** name: the marker; tests: the focused test files; grep: vitest -t (a regular expression), the tests there meant to kill it. */
const MUTANTS = [
  { name: 'chain-head', file: 'server/src/io/traces.ts', tests: ['test/hostile/chain.test.ts'], grep: 'chain head is mandatory' },
  { name: 'chain-state-mark', file: 'server/src/io/traces.ts', tests: ['test/hostile/chain.test.ts'], grep: 'chain head is mandatory' },
  { name: 'chain-head-mandatory', file: 'server/src/io/traces.ts', tests: ['test/hostile/chain.test.ts'], grep: 'chain head is mandatory' },
  { name: 'migrate-fresh-snapshot', file: 'server/src/app/migrate.ts', tests: ['test/integration/gate-rechecks.test.ts'], grep: 'migrate gate: stale after re-derivation' },
  { name: 'migrate-fresh-disk', file: 'server/src/app/migrate.ts', tests: ['test/integration/gate-rechecks.test.ts'], grep: 'migrate gate: stale after re-derivation' },
  { name: 'approve-recheck', file: 'server/src/app/approve.ts', tests: ['test/integration/gate-rechecks.test.ts'], grep: 'approve gate: re-checked' },
  { name: 'plan-rederived', file: 'server/src/app/rederive.ts', tests: ['test/hostile/forged-plan.test.ts'], grep: 'stays inside .github/instructions' },
  { name: 'confine-write-engine', file: 'server/src/io/apply.ts', tests: ['test/hostile/forged-plan.test.ts'], grep: 'write engine on its own' },
  { name: 'approval-workspace', file: 'server/src/core/approval.ts', tests: ['test/hostile/chain.test.ts'], grep: 'copied into another checkout' },
  { name: 'approval-expiry', file: 'server/src/core/approval.ts', tests: ['test/e2e/gates.test.ts'], grep: 'when the approval expired' },
  { name: 'approval-used-once', file: 'server/src/core/approval.ts', tests: ['test/e2e/gates.test.ts'], grep: 'an approval is used once' },
  { name: 'rollback-newest-only', file: 'server/src/app/rollback.ts', tests: ['test/hostile/gate-edges.test.ts'], grep: 'an older migration is refused' },
  { name: 'rollback-unchanged-while-asked', file: 'server/src/app/rollback.ts', tests: ['test/e2e/gates.test.ts'], grep: 'edited while the form is open' },
  // The per-user trace key: only what this server wrote for this user is honoured.
  { name: 'approval-authenticated', file: 'server/src/core/approval.ts', tests: ['test/unit/approval.test.ts'], grep: 'does not authenticate with the per-user key' },
  { name: 'chain-mac', file: 'server/src/io/traces.ts', tests: ['test/hostile/trace-key.test.ts'], grep: 'an approve record appended after a decline' },
  { name: 'checkpoint-authenticated', file: 'server/src/io/state.ts', tests: ['test/hostile/trace-checkpoint.test.ts'], grep: 'ledger was edited' },
  { name: 'approval-reread', file: 'server/src/app/gate-checks.ts', tests: ['test/hostile/trace-checkpoint.test.ts'], grep: 'the approval a gate relies on is read again' },
  { name: 'reread-mac', file: 'server/src/io/traces.ts', tests: ['test/integration/trace-reread.test.ts'], grep: 'does not with another key' },
  // The undo path acts only on the recorded plan's operations.
  { name: 'undo-record-plan-id', file: 'server/src/core/confine.ts', tests: ['test/unit/undo-confine.test.ts'], grep: 'recordMismatch' },
  { name: 'undo-record-extra-paths', file: 'server/src/core/confine.ts', tests: ['test/unit/undo-confine.test.ts'], grep: 'recordMismatch' },
  { name: 'undo-record-lacking-paths', file: 'server/src/core/confine.ts', tests: ['test/unit/undo-confine.test.ts'], grep: 'recordMismatch' },
  { name: 'undo-record-other-bytes', file: 'server/src/core/confine.ts', tests: ['test/unit/undo-confine.test.ts'], grep: 'recordMismatch' },
  { name: 'undo-record-stray-dirs', file: 'server/src/core/confine.ts', tests: ['test/unit/undo-confine.test.ts'], grep: 'recordMismatch' },
  { name: 'undo-manifest-matches-plan', file: 'server/src/io/migration-record.ts', tests: ['test/hostile/undo.test.ts'], grep: 'rollback refuses before its form, naming the paths' },
  { name: 'undo-journal-matches-plan', file: 'server/src/io/migration-record.ts', tests: ['test/hostile/undo.test.ts'], grep: 'a planted journal naming a path its plan does not touch' },
  // Every write into the state folder re-checks it first (io/backup.ts's writes are tested in test/hostile/undo.test.ts).
  { name: 'state-write-recheck', file: 'server/src/io/state.ts', tests: ['test/integration/state-writes.test.ts'], grep: 'onboarding.json' },
  { name: 'plan-write-recheck', file: 'server/src/io/plans.ts', tests: ['test/integration/state-writes.test.ts'], grep: 'a plan' },
  { name: 'journal-write-recheck', file: 'server/src/io/journal.ts', tests: ['test/integration/state-writes.test.ts'], grep: 'the journal' },
  { name: 'lock-write-recheck', file: 'server/src/io/lock.ts', tests: ['test/integration/state-writes.test.ts'], grep: 'the workspace lock' },
  { name: 'trace-write-recheck', file: 'server/src/app/gate-trace.ts', tests: ['test/integration/state-writes.test.ts'], grep: 'a gate trace' },
  { name: 'plan-resource-rederived', file: 'server/src/mcp/resources.ts', tests: ['test/hostile/forged-plan.test.ts'], grep: 'approve and migrate refuse PLAN_NOT_DERIVABLE' },
  { name: 'plan-read-regular', file: 'server/src/io/plans.ts', tests: ['test/e2e/plan-view.test.ts'], grep: 'symlink or a FIFO' },
  { name: 'trace-resource-inside', file: 'server/src/io/traces.ts', tests: ['test/e2e/resources.test.ts'], grep: 'symlink out of the state folder' },
  // Checks added by the undo and plan-view work (their tests, run alone).
  { name: 'rollback-backup-unchanged-while-asked', file: 'server/src/app/rollback.ts', tests: ['test/e2e/gates.test.ts'], grep: 'backup manifest is replaced while the form is open' },
  { name: 'rollback-no-unshown-edits', file: 'server/src/app/rollback.ts', tests: ['test/e2e/gates.test.ts'], grep: 'edited while the form is open' },
  { name: 'backup-archive-confined', file: 'server/src/io/backup.ts', tests: ['test/integration/backup.test.ts'], grep: 'a symlink out before the archive is written' },
  { name: 'backup-manifest-confined', file: 'server/src/io/backup.ts', tests: ['test/integration/backup.test.ts'], grep: 'between the archive and the manifest' },
  { name: 'undo-confirmed-trace', file: 'server/src/io/migration-record.ts', tests: ['test/hostile/forged-migration.test.ts'], grep: 'MIGRATION_UNCONFIRMED' },
  { name: 'recovery-saved-copy-inside-state', file: 'server/src/io/recovery.ts', tests: ['test/hostile/undo.test.ts'], grep: 'edited planted as a symlink to the workspace' },
  { name: 'recovery-newest-only', file: 'server/src/io/recovery.ts', tests: ['test/hostile/undo.test.ts'], grep: 'for the older migration is refused over the live one' },
  { name: 'recovery-journal-matches-plan', file: 'server/src/io/recovery.ts', tests: ['test/hostile/undo.test.ts'], grep: 'a journal whose operations name a path its plan does not touch' },
  { name: 'recovery-done-manifest-matches-plan', file: 'server/src/io/recovery.ts', tests: ['test/hostile/undo.test.ts'], grep: 'a done journal whose manifest lists a path' },
  { name: 'recovery-done-as-written', file: 'server/src/io/recovery.ts', tests: ['test/hostile/undo.test.ts'], grep: 'a done journal while a written file holds other bytes' },
  { name: 'recovery-no-foreign-bytes', file: 'server/src/io/recovery.ts', tests: ['test/hostile/undo.test.ts'], grep: "never overwrites a person's edit" },
  { name: 'rollback-saved-copy-confined', file: 'server/src/io/rollback.ts', tests: ['test/hostile/undo.test.ts'], grep: 'a saved-copy folder planted as a symlink' },
  { name: 'undo-unlink-inside-workspace', file: 'server/src/io/undo.ts', tests: ['test/integration/migration.test.ts'], grep: 'never removes a created file through its folder swapped' },
  { name: 'undo-keep-edited-created', file: 'server/src/io/undo.ts', tests: ['test/integration/migration.test.ts'], grep: 'keeps a created file someone rewrote meanwhile' },
  { name: 'recovery-backing-up-unchanged-tree', file: 'server/src/io/recovery.ts', tests: ['test/hostile/undo.test.ts'], grep: 'a backing-up journal planted' },
  { name: 'trace-record-this-workspace', file: 'server/src/io/traces.ts', tests: ['test/hostile/forged-migration.test.ts', 'test/hostile/shared-answer.test.ts'], grep: 'another checkout' },
  { name: 'discard-backup-confined', file: 'server/src/io/undo.ts', tests: ['test/integration/migration.test.ts'], grep: 'the clean-up removes nothing through it' },
  { name: 'clear-journal-confined', file: 'server/src/io/journal.ts', tests: ['test/integration/migration.test.ts'], grep: 'a backup refused because' },
  // One source of truth (issue 21): a copy is replaced only by an import of a file that holds it; a person's answer is read only when it is one of the answers.
  { name: 'pointer-copy-in-target', file: 'server/src/core/agents/pointers.ts', tests: ['test/unit/shared-rules.test.ts'], grep: 'checked against its new content' },
  // Another agent's globs become an applyTo only when they stay inside the repository.
  { name: 'rule-glob-inside', file: 'server/src/core/agents/outlook.ts', tests: ['test/hostile/agent-formats.test.ts'], grep: 'climb out' },
  { name: 'cline-paths-inside', file: 'server/src/core/agents/outlook.ts', tests: ['test/hostile/agent-formats.test.ts'], grep: 'climb out' },
  { name: 'import-outside-code', file: 'server/src/core/agents/imports.ts', tests: ['test/unit/agent-imports.test.ts'], grep: 'unmatched backtick' },
  { name: 'pointer-import-line', file: 'server/src/core/agents/pointers.ts', tests: ['test/unit/agents-split.test.ts'], grep: 'pointer to AGENTS.md: the check' },
  { name: 'shared-answer-known', file: 'server/src/core/agents/shared-rules.ts', tests: ['test/unit/shared-rules.test.ts'], grep: 'becomes the override' },
  // A saved answer counts only when its authenticated question_ask trace records it, newest by the trace's order (test/hostile/shared-answer.test.ts).
  { name: 'shared-answer-traced', file: 'server/src/io/questions.ts', tests: ['test/hostile/shared-answer.test.ts'], grep: 'a planted answer' },
  { name: 'shared-answer-same-question', file: 'server/src/io/traces.ts', tests: ['test/hostile/shared-answer.test.ts'], grep: 'another question' },
  { name: 'shared-answer-as-traced', file: 'server/src/io/traces.ts', tests: ['test/hostile/shared-answer.test.ts'], grep: 'edited in its file' },
  { name: 'shared-answer-newest-trace', file: 'server/src/io/questions.ts', tests: ['test/hostile/shared-answer.test.ts'], grep: 'newer file name' },
  // The index of question file names (io/questions.ts namesFor): used only while the folder's stamp is the one it was listed at, written only for a folder left alone, its names only inside the folder.
  { name: 'questions-index-fresh', file: 'server/src/io/questions.ts', tests: ['test/integration/propose-questions-read.test.ts'], grep: 'saved after the index was written' },
  { name: 'questions-index-quiet', file: 'server/src/io/questions.ts', tests: ['test/integration/propose-questions-read.test.ts'], grep: 'listed but not indexed' },
  { name: 'questions-index-names', file: 'server/src/io/questions.ts', tests: ['test/integration/propose-questions-read.test.ts'], grep: 'never read' },
  { name: 'trace-record-authenticated', file: 'server/src/io/traces.ts', tests: ['test/hostile/shared-answer.test.ts'], grep: 'does not authenticate' },
  { name: 'journal-confirmation-newest', file: 'server/src/io/migration-record.ts', tests: ['test/hostile/undo.test.ts'], grep: 'replayed after the person confirmed something later' },
  { name: 'status-recovery-authenticated', file: 'server/src/io/traces.ts', tests: ['test/hostile/undo.test.ts'], grep: 'a recover record planted' },
  { name: 'status-rollback-confirmed', file: 'server/src/app/status.ts', tests: ['test/hostile/forged-migration.test.ts'], grep: 'status does not offer the rollback' },
  { name: 'recovery-rollback-confirmed', file: 'server/src/io/migration-record.ts', tests: ['test/hostile/undo.test.ts'], grep: 'a rollback journal nobody confirmed' },
  { name: 'shared-pointer-agrees', file: 'server/src/core/agents/shared-rules.ts', tests: ['test/unit/shared-rules.test.ts'], grep: 'becomes the override' },
  { name: 'model-only-for-apps', file: 'server/src/mcp/server.ts', tests: ['test/e2e/plan-view.test.ts'], grep: 'a tool call from an app' },
  // What a person reads: untrusted text escaped and bounded; no hidden character in a glob that is written.
  { name: 'applyto-unsafe-chars', file: 'server/src/core/overrides.ts', tests: ['test/hostile/overrides.test.ts'], grep: 'applyTo (with|ending)' },
  { name: 'sanitize-escapes', file: 'server/src/core/sanitize.ts', tests: ['test/unit/form-render.test.ts'], grep: 'escapes controls, bidi and separators' },
  { name: 'sanitize-bounded', file: 'server/src/core/sanitize.ts', tests: ['test/unit/form-render.test.ts'], grep: 'escapes controls, bidi and separators' },
];

const marker = (name) => `// safety: ${name}`;

/** The line of `file` carrying the marker (exactly one), or an error message. */
function findMarker(text, m) {
  const lines = text.split('\n');
  const hits = lines.flatMap((l, i) => (l.includes(marker(m.name)) && l.slice(l.indexOf(marker(m.name)) + marker(m.name).length).match(/^\s*$/) ? [i] : []));
  if (hits.length !== 1) return { error: `${hits.length === 0 ? 'no' : hits.length} line(s) of ${m.file} end with "${marker(m.name)}"` };
  return { index: hits[0], lines };
}

/** The line with its check removed, or null when the line has neither supported shape. */
function mutateLine(line) {
  const code = line.slice(0, line.indexOf('// safety:'));
  const at = code.search(/\bif \(/);
  if (at >= 0 && /^\s*(\}?\s*else\s+)?if \($/.test(code.slice(0, at + 4))) {
    let depth = 0;
    for (let i = at + 3; i < code.length; i++) {
      if (code[i] === '(') depth++;
      else if (code[i] === ')' && --depth === 0) return `${code.slice(0, at + 4)}false${code.slice(i)}/* mutant */`;
    }
    return null;
  }
  if (/;\s*$/.test(code)) return `// mutant: ${line}`;
  // A chained call on its own line (`.map((t) => f(t)),`): the call is dropped.
  if (/^\s*\.\w+\(.*\),?\s*$/.test(code)) return `// mutant: ${line}`;
  return null;
}

function vitest(dir, files, grep) {
  const out = path.join(dir, '.mutation-results.json');
  const args = [path.join(dir, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'vitest.mutation.config.mjs', '--reporter=json', `--outputFile=${out}`, '-t', grep, ...files];
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: dir, stdio: 'ignore' });
    child.on('close', () => {
      let report = null;
      try {
        report = JSON.parse(readFileSync(out, 'utf8'));
      } catch {
        /* no report: counted as no test run */
      }
      rmSync(out, { force: true });
      const failed = (report?.testResults ?? []).flatMap((f) => f.assertionResults.filter((a) => a.status === 'failed').map((a) => `${path.relative(dir, f.name)} > ${a.fullName}`));
      resolve({ passed: report?.numPassedTests ?? 0, failed, seconds: ((Date.now() - t0) / 1000).toFixed(1) });
    });
  });
}

/** A copy of the working tree's files (tracked and untracked, not ignored) with node_modules linked, run without the global setup. */
function copyRepo() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'co-mutants-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const f of files) {
    try {
      mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      cpSync(path.join(REPO, f), path.join(dir, f));
    } catch (e) {
      if (e.code !== 'ENOENT') throw e; // deleted in the working tree, not yet in the index
    }
  }
  symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'));
  writeFileSync(path.join(dir, 'vitest.mutation.config.mjs'), "import base from './vitest.config.ts';\nexport default { ...base, test: { ...base.test, globalSetup: [] } };\n");
  return dir;
}

/** `file:line name` of every `// safety:` marker under server/src that MUTANTS does not name for that file. */
function unlisted() {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'server/src'], { cwd: REPO, encoding: 'utf8' }).split('\n').filter((f) => f.endsWith('.ts'));
  return files.flatMap((f) => {
    let text;
    try {
      text = readFileSync(path.join(REPO, f), 'utf8');
    } catch {
      return [];
    }
    return text.split('\n').flatMap((l, i) => {
      const name = /\/\/ safety: ([\w-]+)\s*$/.exec(l)?.[1];
      return name && !MUTANTS.some((m) => m.name === name && m.file === f) ? [`${f}:${i + 1} ${name}`] : [];
    });
  });
}

/** Each chosen mutant with its marker's line and the mutated text, or null (reported) when its marker or line is wrong. */
function locate(m) {
  if (!m.grep) return { error: 'no grep: name the tests meant to kill it' };
  const text = readFileSync(path.join(REPO, m.file), 'utf8');
  const at = findMarker(text, m);
  if (at.error) return { error: at.error };
  const mutated = mutateLine(at.lines[at.index]);
  if (mutated === null) return { error: `${m.file}:${at.index + 1} is neither an if nor a one-line statement` };
  const lines = [...at.lines];
  lines[at.index] = mutated;
  return { ...m, line: at.index + 1, original: text, mutated: lines.join('\n') };
}

async function main() {
  const argv = process.argv.slice(2);
  const chosen = argv.filter((a) => !a.startsWith('--'));
  const unknown = chosen.filter((n) => !MUTANTS.some((m) => m.name === n));
  if (unknown.length) {
    console.error(`unknown mutant(s): ${unknown.join(', ')}; known: ${MUTANTS.map((m) => m.name).join(', ')}`);
    return 2;
  }
  const found = (chosen.length ? MUTANTS.filter((m) => chosen.includes(m.name)) : MUTANTS).map((m) => ({ name: m.name, ...locate(m) }));
  const broken = found.filter((m) => m.error);
  for (const m of broken) console.log(`mutant ${m.name}: ERROR ${m.error}`);
  // A marker nobody lists is a check nothing is known to test.
  for (const u of unlisted()) {
    console.log(`marker ${u}: ERROR not in MUTANTS (add its entry and the tests meant to kill it)`);
    broken.push({ name: u, error: 'unlisted' });
  }
  if (argv.includes('--list')) {
    for (const m of found.filter((x) => !x.error)) console.log(`${m.name.padEnd(32)} ${m.file}:${m.line}  ${m.tests.join(' ')} -t "${m.grep}"`);
    return broken.length ? 1 : 0;
  }
  if (broken.length) return 1;

  const jobs = Math.max(1, Math.min(found.length, Number(process.env.MUTATION_JOBS) || 2));
  const dirs = Array.from({ length: jobs }, copyRepo);
  try {
    const all = [...new Set(found.flatMap((m) => m.tests))];
    const base = await vitest(dirs[0], all, found.map((m) => `(${m.grep})`).join('|'));
    if (base.failed.length || base.passed === 0) {
      console.log(`baseline: FAILED (${base.failed.length} failed, ${base.passed} passed) ${base.failed.slice(0, 5).join('; ')}`);
      return 1;
    }
    console.log(`baseline: ${base.passed} passed in ${all.length} file(s) (${base.seconds}s)`);

    let survived = 0;
    const queue = [...found];
    const worker = async (dir) => {
      for (let m = queue.shift(); m; m = queue.shift()) {
        writeFileSync(path.join(dir, m.file), m.mutated);
        const r = await vitest(dir, m.tests, m.grep);
        writeFileSync(path.join(dir, m.file), m.original);
        const where = `${m.file}:${m.line}`;
        if (r.failed.length) console.log(`mutant ${m.name} (${where}): killed by ${r.failed[0]}${r.failed.length > 1 ? ` (+${r.failed.length - 1})` : ''} (${r.seconds}s)`);
        else {
          survived++;
          console.log(`mutant ${m.name} (${where}): SURVIVED (${r.passed} passed${r.passed === 0 ? ': no test ran, see grep' : ''}) (${r.seconds}s)`);
        }
      }
    };
    await Promise.all(dirs.map(worker));
    console.log(`mutation check: ${found.length - survived} killed, ${survived} survived`);
    return survived ? 1 : 0;
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

process.exitCode = await main();
