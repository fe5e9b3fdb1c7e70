/**
 * Issue 19 §2: an approval an agent cannot write. An agent that can edit every workspace file
 * (but not the user's config folder) appends an "approved" approve record after the person
 * declined, with the link, the record hash, `.head.json` and onboarding.json's chain mark all
 * computed from the public formulas. Before the per-user trace key, `traces verify` passed and
 * migrate asked "Migrate now with …, which you approved?". Now the record does not authenticate:
 * verify names it and migrate refuses before any form, changing nothing.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { runCli } from '../../server/src/cli/program.js';
import { TRACES, YES_MIGRATE, appendForgedApproval, approveAnswered, cleanup, expectRefused, expectSafe, guard, reseal, traceRecords, wholeSha } from '../helpers/hostile.js';

afterEach(cleanup);

const DECLINE: ElicitResult = { action: 'decline' };

async function tracesVerify(root: string, ...extra: string[]): Promise<{ code: number; out: string }> {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const code = await runCli({ argv: ['node', 'copilot-onboarding', 'traces', 'verify', '-w', root, '--chain', 'elicitation', ...extra], cwd: root, env: {}, stdout, stderr: new PassThrough(), isTTY: false });
  return { code, out };
}

describe('an approval an agent cannot write (per-user trace key)', () => {
  it('an approve record appended after a decline, with link, hash, head and mark from the public formulas: verify names it, migrate refuses and asks nobody', async () => {
    // A migrate confirmation is scripted: if the forgery were believed, the migration would run.
    const { sb, h } = await approveAnswered([DECLINE, YES_MIGRATE]);
    const [decline] = traceRecords(sb.root);
    expect(decline!.rec.outcome).toBe('declined');
    const forged = String(appendForgedApproval(sb.root, decline!.rec).file);

    const v = await tracesVerify(sb.root);
    expect(v.code, v.out).toBe(3);
    expect(v.out).toContain(forged);
    expect(v.out).toMatch(/unauthenticated .*does not authenticate with this user's trace key/);

    const before = guard(sb);
    const text = expectRefused(await h.call('onboarding_migrate', {}), 'TRACE_CHAIN_BROKEN');
    expect(text).toContain(forged);
    expect(h.shown, 'the migrate form ("which you approved") must never be shown').toHaveLength(1);
    await expectSafe(h, sb, before);
  });

  it('a chain written before per-user keys (@2, no mac) with a forged approval appended: the chain verifies, but migrate does not honour the approval', async () => {
    const { sb, h } = await approveAnswered([DECLINE, YES_MIGRATE]);
    // Rewrite the one record as the previous version wrote it: format @2, no mac.
    const [t] = traceRecords(sb.root);
    const { mac: _mac, ...old } = t!.rec;
    const legacy = reseal({ ...old, format: 'copilot-onboarding/elicitation-trace@2' });
    writeFileSync(t!.abs, JSON.stringify(legacy, null, 2) + '\n');
    const mark = { seq: 1, sha256: wholeSha(legacy), file: t!.file };
    writeFileSync(path.join(sb.root, TRACES, '.head.json'), JSON.stringify(mark));
    const forged = String(appendForgedApproval(sb.root, legacy, { format: 'copilot-onboarding/elicitation-trace@2' }).file);

    const v = await tracesVerify(sb.root);
    expect(v.code, v.out).toBe(0);
    // It says which records it could not authenticate, and that approvals among them do not count.
    expect(v.out).toMatch(/2 traces \(seq 1\.\.2\) before the first one your key authenticates.*no approval among them is honoured/);

    const before = guard(sb);
    const text = expectRefused(await h.call('onboarding_migrate', {}), 'NOT_APPROVED');
    expect(text).toContain(`(${forged}) does not authenticate with this user's trace key`);
    expect(h.shown).toHaveLength(1);
    await expectSafe(h, sb, before);
  });

  it('verify without the key checks the hash chain only and says so', async () => {
    const { sb } = await approveAnswered([DECLINE]);
    const keyed = await tracesVerify(sb.root);
    expect(keyed.code).toBe(0);
    expect(keyed.out).toMatch(/Every trace's mac was checked with your per-user trace key/);
    const chainOnly = await tracesVerify(sb.root, '--chain-only');
    expect(chainOnly.code).toBe(0);
    expect(chainOnly.out).toMatch(/Hash chain only \(--chain-only\): the macs were not checked/);
    // An auditor on another machine: no key in its config folder.
    const saved = process.env.COPILOT_ONBOARDING_CONFIG_DIR;
    process.env.COPILOT_ONBOARDING_CONFIG_DIR = path.join(sb.outside, 'empty-config');
    try {
      const auditor = await tracesVerify(sb.root);
      expect(auditor.code).toBe(0);
      expect(auditor.out).toMatch(/Hash chain only: no per-user trace key here \(.*empty-config.*\), so the macs were not checked/);
    } finally {
      process.env.COPILOT_ONBOARDING_CONFIG_DIR = saved;
    }
  });
});
