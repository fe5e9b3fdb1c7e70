/**
 * The operator CLI (status, traces list/show/verify, rollback), run in-process through
 * runCli with injected streams, plus the built binary once. Trace chains are real
 * (TraceStore); the rollback runs on a real migration made through the MCP tools.
 */
import { execFile } from 'node:child_process';
import { existsSync, promises as fsp } from 'node:fs';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../server/src/cli/program.js';
import { ROLLBACK_SCHEMA } from '../../server/src/core/approval.js';
import { TraceStore, recordHash, traceDir, verifyChain, wholeHash, type ChainKind } from '../../server/src/io/traces.js';
import type { SamplingTrace } from '../../server/src/schemas/trace.js';
import { YES_APPROVE, YES_MIGRATE, connect, removeWorkspace, tempWorkspace, textOf } from '../helpers/harness.js';
import { unsealed } from '../helpers/traces.js';
import { digest, exampleWorkspace, readTraces } from '../helpers/workspace.js';

const BIN = path.resolve(import.meta.dirname, '../../dist/index.js');
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) removeWorkspace(r);
});
function ws(): string {
  const r = tempWorkspace('co-cli-');
  roots.push(r);
  return r;
}

class Sink extends Writable {
  text = '';
  onText: ((text: string) => void) | undefined;
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.text += chunk.toString();
    this.onText?.(this.text);
    cb();
  }
}

interface Run {
  code: number;
  out: string;
  err: string;
}

async function run(
  args: string[],
  o: {
    cwd?: string;
    env?: NodeJS.ProcessEnv;
    isTTY?: boolean;
    /** Typed ahead; null = end of input; a function runs once the rollback prompt is on screen. */
    input?: string | null | ((stdin: PassThrough) => Promise<void>);
  } = {},
): Promise<Run> {
  const stdout = new Sink();
  const stderr = new Sink();
  const stdin = new PassThrough();
  const input = o.input;
  if (typeof input === 'function') {
    let fired = false;
    stdout.onText = (text) => {
      if (!fired && text.includes('Roll back? [y/N]')) {
        fired = true;
        void input(stdin);
      }
    };
  } else if (input === null) stdin.end();
  else if (input !== undefined) stdin.write(input);
  const code = await runCli({
    argv: ['node', 'copilot-onboarding', ...args],
    cwd: o.cwd ?? process.cwd(),
    env: o.env ?? {},
    stdout,
    stderr,
    stdin,
    isTTY: o.isTTY ?? false,
  });
  return { code, out: stdout.text, err: stderr.text };
}

const json = (r: Run) => JSON.parse(r.out) as { ok: boolean; command: string; data: Record<string, unknown>; error?: { code: string }; exitCode?: number };

// ---------------------------------------------------------------------------------------------
// chains

function samplingUnsealed(i: number): Omit<SamplingTrace, 'seq' | 'prev_sha256' | 'sha256'> {
  return {
    format: 'copilot-onboarding/sampling-trace@1',
    timestamp: new Date(Date.UTC(2026, 10, 22, 11, 0, 0, i)).toISOString(),
    intent: i % 2 ? 'propose' : 'analyze',
    client: { name: 'test', version: '1' },
    request: { maxTokens: 400, messages: [{ role: 'user', content: { type: 'text', text: `facts ${i}` } }] },
    response: { model: 'stub-model', stopReason: 'endTurn', text: `narration ${i}` },
    outcome: 'narrated',
    fallback_used: false,
    duration_ms: 12,
    error: null,
  };
}

/** Four traces in each chain; returns the file names in seq order. */
async function buildChains(root: string): Promise<Record<ChainKind, string[]>> {
  const e = new TraceStore(root, 'elicitation');
  const s = new TraceStore(root, 'sampling');
  const out: Record<ChainKind, string[]> = { elicitation: [], sampling: [] };
  const actions = ['approve', 'migrate', 'question', 'rollback'] as const;
  for (let i = 0; i < 4; i++) {
    const action = actions[i]!;
    const subject = action === 'question' ? { question: 'Which globs for the Testing section?' } : action === 'rollback' ? { migrationId: 'm-1', planId: 'p' } : { planId: 'p', planSha256: 'a'.repeat(64) };
    out.elicitation.push((await e.append(unsealed(i, { action, subject, outcome: action === 'question' ? 'answered' : 'approved' }), action)).file);
    out.sampling.push((await s.append(samplingUnsealed(i), samplingUnsealed(i).intent)).file);
  }
  return out;
}

async function readRec(root: string, chain: ChainKind, file: string): Promise<Record<string, unknown>> {
  return JSON.parse(await fsp.readFile(path.join(traceDir(root, chain), file), 'utf8')) as Record<string, unknown>;
}
async function writeRec(root: string, chain: ChainKind, file: string, rec: Record<string, unknown>): Promise<void> {
  await fsp.writeFile(path.join(traceDir(root, chain), file), JSON.stringify(rec, null, 2) + '\n');
}
function reseal(rec: Record<string, unknown>): Record<string, unknown> {
  const { sha256: _old, ...body } = rec;
  return { ...body, sha256: recordHash(body) };
}
const textField = (chain: ChainKind) => (chain === 'elicitation' ? 'message' : 'intent');

/** Each tampering: what to do, and which file verify must name (by index into the chain's files, or a literal). */
const TAMPERINGS: Array<{
  kind: string;
  problem: string;
  apply: (root: string, chain: ChainKind, files: string[]) => Promise<string>;
}> = [
  {
    kind: 'modified (hash left as it was)',
    problem: 'modified',
    apply: async (root, chain, files) => {
      const rec = await readRec(root, chain, files[1]!);
      rec[textField(chain)] = 'changed after the fact';
      await writeRec(root, chain, files[1]!, rec);
      return files[1]!;
    },
  },
  {
    kind: 'modified with its own sha256 recomputed (middle: the next link breaks)',
    problem: 'forged',
    apply: async (root, chain, files) => {
      const rec = await readRec(root, chain, files[1]!);
      rec[textField(chain)] = 'changed and resealed';
      await writeRec(root, chain, files[1]!, reseal(rec));
      return files[2]!; // the successor's prev_sha256 no longer links to anything
    },
  },
  {
    kind: 'modified with its own sha256 recomputed (last: the head disagrees)',
    problem: 'forged',
    apply: async (root, chain, files) => {
      const rec = await readRec(root, chain, files[3]!);
      rec[textField(chain)] = 'changed and resealed';
      await writeRec(root, chain, files[3]!, reseal(rec));
      return files[3]!;
    },
  },
  {
    kind: 'missing (middle)',
    problem: 'missing',
    apply: async (root, chain, files) => {
      await fsp.rm(path.join(traceDir(root, chain), files[1]!));
      return files[2]!;
    },
  },
  {
    kind: 'missing (tail)',
    problem: 'missing',
    apply: async (root, chain, files) => {
      await fsp.rm(path.join(traceDir(root, chain), files[3]!));
      return files[3]!;
    },
  },
  {
    kind: 'inserted (a second, validly sealed trace with an existing seq)',
    problem: 'inserted',
    apply: async (root, chain, files) => {
      const first = await readRec(root, chain, files[0]!);
      const rec = await readRec(root, chain, files[1]!);
      rec[textField(chain)] = 'slipped in later';
      rec.prev_sha256 = wholeHash(first);
      const name = '9999-inserted.json';
      rec.file = name; // a @2 forger seals the name it writes
      await writeRec(root, chain, name, reseal(rec));
      return name;
    },
  },
  {
    kind: 'reordered (two traces swapped and resealed)',
    problem: 'reordered',
    apply: async (root, chain, files) => {
      const a = await readRec(root, chain, files[1]!);
      const b = await readRec(root, chain, files[2]!);
      [a.seq, b.seq] = [b.seq, a.seq];
      await writeRec(root, chain, files[1]!, reseal(a));
      await writeRec(root, chain, files[2]!, reseal(b));
      return files[1]!; // now seq 3, linking to seq 1
    },
  },
  {
    kind: 'forged (prev_sha256 links to no trace)',
    problem: 'forged',
    apply: async (root, chain, files) => {
      const rec = await readRec(root, chain, files[2]!);
      rec.prev_sha256 = 'f'.repeat(64);
      await writeRec(root, chain, files[2]!, reseal(rec));
      return files[2]!;
    },
  },
  {
    kind: 'unparseable',
    problem: 'unparseable',
    apply: async (root, chain, files) => {
      await fsp.writeFile(path.join(traceDir(root, chain), files[1]!), '{"format": "copilot-onboarding/');
      return files[1]!;
    },
  },
];

// ---------------------------------------------------------------------------------------------

describe('copilot-onboarding status', () => {
  const KEYS = ['approval', 'backup', 'currentPlan', 'lastMigration', 'pattern', 'pendingRecovery', 'recovered', 'rollbackAvailable', 'stateError', 'status', 'workspace'];

  it('--json on an empty workspace: a stable envelope and shape', async () => {
    const root = ws();
    const r = await run(['status', '--workspace', root, '--json']);
    expect(r.code).toBe(0);
    const j = json(r);
    expect(j).toMatchObject({ ok: true, command: 'status' });
    expect(Object.keys(j.data).sort()).toEqual(KEYS);
    expect(j.data).toMatchObject({
      workspace: root,
      status: 'new',
      pattern: null,
      stateError: null,
      currentPlan: null,
      approval: null,
      lastMigration: null,
      backup: null,
      rollbackAvailable: false,
      recovered: null,
      pendingRecovery: null,
    });
    // Status reads only: it creates no state folder.
    await expect(fsp.access(path.join(root, '.copilot-state'))).rejects.toThrow();
  });

  it('resolves the workspace from --workspace, else COPILOT_ONBOARDING_WORKSPACE, else the current folder', async () => {
    const a = ws();
    const b = ws();
    expect(json(await run(['status', '--json'], { cwd: a })).data.workspace).toBe(a);
    expect(json(await run(['status', '--json'], { cwd: a, env: { COPILOT_ONBOARDING_WORKSPACE: b } })).data.workspace).toBe(b);
    expect(json(await run(['status', '--json', '--workspace', a], { cwd: b, env: { COPILOT_ONBOARDING_WORKSPACE: b } })).data.workspace).toBe(a);
  });

  it('prints a readable summary without --json', async () => {
    const root = ws();
    const r = await run(['status', '--workspace', root]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Workspace: +.+$/m);
    expect(r.out).toMatch(/^Status: +new$/m);
    expect(r.out).toMatch(/^Rollback available: no$/m);
  });

  it('a corrupt onboarding.json is reported, not fatal', async () => {
    const root = ws();
    await fsp.mkdir(path.join(root, '.copilot-state'), { recursive: true });
    await fsp.writeFile(path.join(root, '.copilot-state', 'onboarding.json'), '{ broken');
    const r = await run(['status', '--workspace', root, '--json']);
    expect(r.code).toBe(0);
    expect(json(r).data).toMatchObject({ status: 'unknown', stateError: { code: 'STATE_CORRUPT' } });
  });

  it('unknown options are usage errors (exit 2)', async () => {
    const r = await run(['status', '--no-such-option']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown option/);
  });
});

describe('copilot-onboarding traces list / show', () => {
  it('lists both chains, labelled, one line per trace', async () => {
    const root = ws();
    const files = await buildChains(root);
    const r = await run(['traces', 'list', '--workspace', root]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('elicitation-traces (4)');
    expect(r.out).toContain('sampling-traces (4)');
    const lines = r.out.split('\n');
    const eStart = lines.findIndex((l) => l.startsWith('elicitation-traces'));
    expect(lines[eStart + 1]).toMatch(/^SEQ +TIME +ACTION +CHANNEL +CLIENT +OUTCOME +SUBJECT$/);
    expect(lines[eStart + 2]).toMatch(/^1 +2026-11-22T10:00:00\.000Z +approve +mcp +test 1 +approved +plan p, sha256 aaaaaaaaaaaa$/);
    expect(lines[eStart + 4]).toMatch(/^3 .* question .* answered +"Which globs for the Testing section\?"$/);
    expect(lines[eStart + 5]).toMatch(/^4 .* rollback .* migration m-1$/);
    const sStart = lines.findIndex((l) => l.startsWith('sampling-traces'));
    expect(lines[sStart + 1]).toMatch(/^SEQ +TIME +INTENT +CLIENT +OUTCOME +SUBJECT$/);
    expect(lines[sStart + 2]).toMatch(/^1 +2026-11-22T11:00:00\.000Z +analyze +test 1 +narrated +model stub-model$/);

    const j = json(await run(['traces', 'list', '--workspace', root, '--json']));
    const chains = j.data.chains as Record<ChainKind, Array<{ seq: number; file: string; action: string }>>;
    expect(chains.elicitation.map((t) => t.file)).toEqual(files.elicitation);
    expect(chains.sampling.map((t) => [t.seq, t.action])).toEqual([
      [1, 'analyze'],
      [2, 'propose'],
      [3, 'analyze'],
      [4, 'propose'],
    ]);
    const only = json(await run(['traces', 'list', '--workspace', root, '--json', '--chain', 'sampling']));
    expect(Object.keys(only.data.chains as object)).toEqual(['sampling']);
  });

  it('an empty workspace lists nothing', async () => {
    const r = await run(['traces', 'list', '--workspace', ws()]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('elicitation-traces (0)\n  (none)');
  });

  it('an unreadable trace shows up in the list', async () => {
    const root = ws();
    const files = await buildChains(root);
    await fsp.writeFile(path.join(traceDir(root, 'elicitation'), files.elicitation[2]!), 'not json');
    const r = await run(['traces', 'list', '--workspace', root]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`UNREADABLE +${files.elicitation[2]!.replace(/\./g, '\\.')} \\(not valid JSON\\)`));
  });

  it('shows one trace by seq, file name or path, in either chain', async () => {
    const root = ws();
    const files = await buildChains(root);
    const bySeq = await run(['traces', 'show', '2', '--workspace', root]);
    expect(bySeq.code).toBe(0);
    expect(bySeq.out).toContain(`elicitation trace #2  .copilot-state/elicitation-traces/${files.elicitation[1]}`);
    expect(bySeq.out).toMatch(/action: +migrate \(channel mcp\)/);
    expect(bySeq.out).toContain('message shown:\n  | message 1');
    expect(bySeq.out).toContain('"approved": true');

    const byFile = await run(['traces', 'show', files.sampling[2]!, '--workspace', root]);
    expect(byFile.code).toBe(0);
    expect(byFile.out).toContain('sampling trace #3');
    expect(byFile.out).toContain('response text:\n  | narration 2');

    const byPath = json(await run(['traces', 'show', `.copilot-state/sampling-traces/${files.sampling[0]}`, '--workspace', root, '--json']));
    expect(byPath.data).toMatchObject({ chain: 'sampling', file: files.sampling[0], intact: true, record: { seq: 1, intent: 'analyze' } });

    const sampling4 = json(await run(['traces', 'show', '4', '--chain', 'sampling', '--workspace', root, '--json']));
    expect(sampling4.data).toMatchObject({ chain: 'sampling', record: { seq: 4, intent: 'propose' } });
  });

  it('warns when the shown trace does not match its hash', async () => {
    const root = ws();
    const files = await buildChains(root);
    const rec = await readRec(root, 'elicitation', files.elicitation[0]!);
    rec.message = 'edited';
    await writeRec(root, 'elicitation', files.elicitation[0]!, rec);
    const r = await run(['traces', 'show', '1', '--workspace', root]);
    expect(r.out).toMatch(/WARNING: this file does not match its sha256/);
    expect(json(await run(['traces', 'show', '1', '--workspace', root, '--json'])).data.intact).toBe(false);
  });

  it('unknown traces and bad names are usage errors (exit 2), with a JSON envelope when asked', async () => {
    const root = ws();
    await buildChains(root);
    expect((await run(['traces', 'show', '99', '--workspace', root])).code).toBe(2);
    expect((await run(['traces', 'show', 'nope.json', '--workspace', root])).code).toBe(2);
    expect((await run(['traces', 'show', '../../etc/passwd', '--workspace', root])).code).toBe(2);
    expect((await run(['traces', 'show', '1', '--chain', 'other', '--workspace', root])).code).toBe(2);
    const j = await run(['traces', 'show', '99', '--workspace', root, '--json']);
    expect(json(j)).toMatchObject({ ok: false, command: 'traces show', error: { code: 'INVALID_INPUT' }, exitCode: 2 });
  });
});

describe('copilot-onboarding traces verify', () => {
  it('passes on untouched chains, with counts', async () => {
    const root = ws();
    await buildChains(root);
    const r = await run(['traces', 'verify', '--workspace', root]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('elicitation-traces: OK (4 traces, seq 1..4)');
    expect(r.out).toContain('sampling-traces: OK (4 traces, seq 1..4)');
    const j = json(await run(['traces', 'verify', '--workspace', root, '--json']));
    expect(j.ok).toBe(true);
    expect((j.data.chains as Array<{ chain: string; ok: boolean; count: number }>).map((c) => [c.chain, c.ok, c.count])).toEqual([
      ['elicitation', true, 4],
      ['sampling', true, 4],
    ]);
  });

  it('passes on a workspace with no traces at all', async () => {
    const r = await run(['traces', 'verify', '--workspace', ws()]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('elicitation-traces: OK (0 traces)');
  });

  for (const chain of ['elicitation', 'sampling'] as const) {
    for (const t of TAMPERINGS) {
      it(`${chain}: ${t.kind} → exit 3, naming the file`, async () => {
        const root = ws();
        const files = await buildChains(root);
        const named = await t.apply(root, chain, files[chain]);
        const r = await run(['traces', 'verify', '--workspace', root]);
        expect(r.code).toBe(3);
        const other = chain === 'elicitation' ? 'sampling' : 'elicitation';
        expect(r.out).toContain(`${other}-traces: OK (4 traces`);
        expect(r.out).toMatch(new RegExp(`^${chain}-traces: BROKEN`, 'm'));
        expect(r.out).toMatch(new RegExp(`^  ${t.problem} +${named.replace(/\./g, '\\.')}`, 'm'));
        expect(r.err).toContain('Trace verification FAILED');

        const j = json(await run(['traces', 'verify', '--workspace', root, '--json']));
        expect(j).toMatchObject({ ok: false, exitCode: 3 });
        const report = (j.data.chains as Array<{ chain: string; ok: boolean; problems: Array<{ kind: string; file: string | null }> }>).find((c) => c.chain === chain)!;
        expect(report.ok).toBe(false);
        expect(report.problems).toContainEqual(expect.objectContaining({ kind: t.problem, file: named }));
        // The library check agrees with the CLI.
        expect((await verifyChain(root, chain)).ok).toBe(false);
      });
    }
  }

  it('--chain limits the walk to one chain', async () => {
    const root = ws();
    const files = await buildChains(root);
    await fsp.rm(path.join(traceDir(root, 'sampling'), files.sampling[1]!));
    expect((await run(['traces', 'verify', '--chain', 'elicitation', '--workspace', root])).code).toBe(0);
    expect((await run(['traces', 'verify', '--chain', 'sampling', '--workspace', root])).code).toBe(3);
  });

  it('the built binary exits 0 on an intact chain and 3 on a broken one', async () => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run npm run build (npm test does it)`);
    const root = ws();
    const files = await buildChains(root);
    const exec = promisify(execFile);
    const ok = await exec(process.execPath, [BIN, 'traces', 'verify', '--workspace', root]);
    expect(ok.stdout).toContain('elicitation-traces: OK (4 traces');
    await fsp.rm(path.join(traceDir(root, 'elicitation'), files.elicitation[1]!));
    const failed = await exec(process.execPath, [BIN, 'traces', 'verify', '--workspace', root]).then(
      () => null,
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(failed?.code).toBe(3);
    expect(failed?.stdout).toContain(files.elicitation[2]!);
    expect(failed?.stderr).toContain('Trace verification FAILED');
  });
});

// ---------------------------------------------------------------------------------------------
// rollback on a real migration

/** The bundled example, migrated through the MCP tools; returns the digest from before. */
async function migrated(): Promise<{ root: string; before: Record<string, string>; after: Record<string, string>; migrationId: string }> {
  const root = exampleWorkspace();
  roots.push(root);
  const before = await digest(root);
  const h = await connect({ root, caps: { elicitation: {} }, elicit: [YES_APPROVE, YES_MIGRATE] });
  try {
    for (const [tool, args] of [
      ['onboarding_propose', { narrate: false }],
      ['onboarding_approve', {}],
      ['onboarding_migrate', {}],
    ] as const) {
      const r = await h.call(tool, args);
      expect(r.isError, `${tool}: ${textOf(r)}`).toBeFalsy();
      if (tool === 'onboarding_migrate') {
        const after = await digest(root);
        expect(after).not.toEqual(before);
        return { root, before, after, migrationId: String((r.structuredContent as { migrationId: string }).migrationId) };
      }
    }
    throw new Error('unreachable');
  } finally {
    await h.close();
  }
}

async function lastTrace(root: string) {
  const all = await readTraces(root);
  return all[all.length - 1]!;
}

describe('copilot-onboarding rollback', () => {
  it('on a TTY, "y" restores every byte, traces channel "cli", and the chain still verifies', async () => {
    const m = await migrated();
    const r = await run(['rollback', '--workspace', m.root], { isTTY: true, input: 'y\n' });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`Roll back migration \`${m.migrationId}\``);
    expect(r.out).toMatch(/- Restore `\.github\/copilot-instructions\.md` byte for byte\./);
    expect(r.out).toMatch(/- Remove `\.github\/instructions\/[^`]+` \(created by the migration\)\./);
    expect(r.out).toContain('No migrated file was edited since the migration.');
    expect(r.out).toContain('Roll back? [y/N] ');
    expect(r.out).toContain(`Rolled back migration ${m.migrationId}.`);
    expect(await digest(m.root)).toEqual(m.before);

    const t = await lastTrace(m.root);
    expect(t).toMatchObject({
      action: 'rollback',
      channel: 'cli',
      client: { name: 'copilot-onboarding-cli' },
      schema: ROLLBACK_SCHEMA,
      response: { action: 'accept', content: { confirmed: true } },
      outcome: 'approved',
      subject: { migrationId: m.migrationId, confirmation: 'tty', editedSinceMigration: [] },
      error: null,
    });
    expect(r.out).toContain(String(t.message));
    expect((await readTraces(m.root)).map((x) => `${x.action}:${x.channel}`)).toEqual(['approve:mcp', 'migrate:mcp', 'rollback:cli']);
    expect((await verifyChain(m.root, 'elicitation')).ok).toBe(true);
    expect((await run(['traces', 'verify', '--workspace', m.root])).code).toBe(0);

    const st = json(await run(['status', '--workspace', m.root, '--json']));
    expect(st.data).toMatchObject({ status: 'rolled-back', rollbackAvailable: false });
    // Nothing left to roll back: refused (exit 1).
    const again = await run(['rollback', '--workspace', m.root, '--yes']);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/NO_MIGRATION/);
  });

  it('on a TTY, "n" (or anything but y/yes) declines: exit 1, nothing changed, traced as declined', async () => {
    const m = await migrated();
    const r = await run(['rollback', '--workspace', m.root], { isTTY: true, input: 'n\n' });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/Declined\. Not rolled back; nothing was changed\./);
    expect(await digest(m.root)).toEqual(m.after);
    expect(await lastTrace(m.root)).toMatchObject({ action: 'rollback', channel: 'cli', response: { action: 'decline' }, outcome: 'declined' });

    const maybe = await run(['rollback', '--workspace', m.root], { isTTY: true, input: 'sure\n' });
    expect(maybe.code).toBe(1);
    expect(await digest(m.root)).toEqual(m.after);
    expect((await verifyChain(m.root, 'elicitation')).ok).toBe(true);
  });

  it('on a TTY, end of input cancels', async () => {
    const m = await migrated();
    const r = await run(['rollback', '--workspace', m.root], { isTTY: true, input: null });
    expect(r.code).toBe(1);
    expect(await digest(m.root)).toEqual(m.after);
    expect(await lastTrace(m.root)).toMatchObject({ outcome: 'cancelled', response: { action: 'cancel' } });
  });

  it('without a TTY it refuses unless --yes; with --yes it proceeds and says so in the trace', async () => {
    const m = await migrated();
    const refused = await run(['rollback', '--workspace', m.root, '--json']);
    expect(refused.code).toBe(1);
    expect(json(refused)).toMatchObject({ ok: false, command: 'rollback', data: { rolledBack: false, outcome: 'unsupported' }, exitCode: 1 });
    expect(refused.err).toMatch(/no terminal to confirm on.*--yes/);
    expect(await digest(m.root)).toEqual(m.after);
    expect(await lastTrace(m.root)).toMatchObject({ channel: 'cli', outcome: 'unsupported', response: null });

    const yes = await run(['rollback', '--workspace', m.root, '--yes', '--reason', 'bad split', '--json']);
    expect(yes.code, yes.err).toBe(0);
    const j = json(yes);
    expect(j).toMatchObject({ ok: true, command: 'rollback', data: { rolledBack: true, migrationId: m.migrationId } });
    expect((j.data.restored as string[]).length).toBeGreaterThan(0);
    expect((j.data.removed as string[]).length).toBeGreaterThan(0);
    // --json keeps stdout one JSON document; the message went to stderr.
    expect(yes.err).toContain(`Roll back migration \`${m.migrationId}\``);
    expect(await digest(m.root)).toEqual(m.before);
    expect(await lastTrace(m.root)).toMatchObject({
      channel: 'cli',
      outcome: 'approved',
      response: { action: 'accept', content: { confirmed: true, reason: 'bad split' } },
      subject: { confirmation: '--yes' },
    });
    expect((await verifyChain(m.root, 'elicitation')).ok).toBe(true);
  });

  it('lists files edited since the migration before asking', async () => {
    const m = await migrated();
    const created = Object.keys(m.after).find((f) => f.startsWith('.github/instructions/'))!;
    await fsp.appendFile(path.join(m.root, created), '\nlocal edit\n');
    const r = await run(['rollback', '--workspace', m.root], { isTTY: true, input: 'y\n' });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/WARNING: 1 file was edited since the migration; it is saved to `\.copilot-state\/backups\/[^`]+\.edited\/` first/);
    expect(r.out).toContain(`- Edited since the migration: \`${created}\` is saved to`);
    expect(r.out).toMatch(new RegExp(`Files edited since the migration were saved first: \\.copilot-state/backups/[^ ]+\\.edited/${created.replace(/\./g, '\\.')}`));
    expect(await lastTrace(m.root)).toMatchObject({ subject: { editedSinceMigration: [created] } });
    expect(await digest(m.root)).toEqual(m.before);
  });

  it('refuses when a migrated file is edited while the question is open (re-checked before acting)', async () => {
    const m = await migrated();
    const created = Object.keys(m.after).find((f) => f.startsWith('.github/instructions/'))!;
    const r = await run(['rollback', '--workspace', m.root], {
      isTTY: true,
      input: async (stdin) => {
        await fsp.appendFile(path.join(m.root, created), '\nedited meanwhile\n');
        stdin.write('y\n');
      },
    });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`Not rolled back: ${created} changed while the question was open`);
    const now = await digest(m.root);
    expect(Object.keys(now)).toEqual(Object.keys(m.after));
    expect(now[created]).not.toBe(m.after[created]);
    expect((await verifyChain(m.root, 'elicitation')).ok).toBe(true);
  });

  it('a corrupt backup is refused before asking: exit 1, no file touched, one "refused" trace', async () => {
    const m = await migrated();
    const backups = path.join(m.root, '.copilot-state', 'backups');
    const archive = (await fsp.readdir(backups)).find((f) => f.endsWith('.tar.gz'))!;
    const bytes = await fsp.readFile(path.join(backups, archive));
    const mid = Math.floor(bytes.length / 2);
    bytes[mid] = bytes[mid]! ^ 0xff;
    await fsp.writeFile(path.join(backups, archive), bytes);
    const tracesBefore = (await readTraces(m.root)).length;
    const r = await run(['rollback', '--workspace', m.root, '--yes']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/BACKUP_CORRUPT/);
    expect(r.out).not.toContain('Roll back?');
    expect(await digest(m.root)).toEqual(m.after);
    const traces = await readTraces(m.root);
    expect(traces.length).toBe(tracesBefore + 1);
    expect(traces.at(-1)).toMatchObject({ action: 'rollback', channel: 'cli', outcome: 'refused', code: 'BACKUP_CORRUPT', message: '', response: null });
  });

  it('a missing backup is refused the same way', async () => {
    const m = await migrated();
    const backups = path.join(m.root, '.copilot-state', 'backups');
    for (const f of await fsp.readdir(backups)) if (f.endsWith('.tar.gz')) await fsp.rm(path.join(backups, f));
    const r = await run(['rollback', '--workspace', m.root, '--yes', '--json']);
    expect(r.code).toBe(1);
    expect(json(r)).toMatchObject({ ok: false, command: 'rollback', exitCode: 1 });
    expect(await digest(m.root)).toEqual(m.after);
  });

  it('fails closed when the trace cannot be written', async () => {
    const m = await migrated();
    const dir = traceDir(m.root, 'elicitation');
    // A folder where the chain's head should be: the traces can be read (the migration's confirmation is found), every append fails.
    await fsp.rm(path.join(dir, '.head.json'));
    await fsp.mkdir(path.join(dir, '.head.json'));
    const r = await run(['rollback', '--workspace', m.root, '--yes']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/TRACE_WRITE_FAILED/);
    expect(await digest(m.root)).toEqual(m.after);
  });

  it('a trace folder that cannot be read: the confirmation cannot be checked, refused by name, nothing changed', async () => {
    const m = await migrated();
    const dir = traceDir(m.root, 'elicitation');
    await fsp.rename(dir, `${dir}.moved`);
    await fsp.writeFile(dir, 'not a folder');
    const r = await run(['rollback', '--workspace', m.root, '--yes']);
    expect(r.code).toBe(3); // the CLI's exit code for a trace chain it cannot trust
    expect(r.err).toMatch(/TRACE_CHAIN_BROKEN: .*the elicitation traces cannot be read/);
    expect(await digest(m.root)).toEqual(m.after);
  });

  it('a bad --migration id is a usage error (exit 2)', async () => {
    const r = await run(['rollback', '--workspace', ws(), '--migration', '../../x', '--yes']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/INVALID_INPUT/);
  });

  it('no migration: refused with exit 1', async () => {
    const r = await run(['rollback', '--workspace', ws(), '--yes']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/NO_MIGRATION: There is no migration to roll back/);
  });
});
