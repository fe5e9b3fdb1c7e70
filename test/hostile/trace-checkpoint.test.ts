/**
 * Issue 22: the gates walk the elicitation chain from a checkpoint (`.copilot-state/
 * trace-checkpoint.json`, authenticated with the per-user key) and read only the traces appended
 * since. A forged, edited or truncated checkpoint is ignored (the whole chain is walked), an
 * authentic older one still refuses a chain that lost what it verified, and the approval a gate
 * relies on is read again whatever the checkpoint says.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { STATE, YES_APPROVE, YES_MIGRATE, appendForgedApproval, approveAnswered, cleanup, expectOk, expectRefused, expectSafe, guard, traceRecords, wholeSha, writeChainMark } from '../helpers/hostile.js';

afterEach(cleanup);

const DECLINE: ElicitResult = { action: 'decline' };
const CHECKPOINT = `${STATE}/trace-checkpoint.json`;

const bySeq = (root: string) => traceRecords(root).sort((a, b) => Number(a.rec.seq) - Number(b.rec.seq));

/** A checkpoint that vouches for `rec` as an authenticated approval, as a forger would write it (any mac). */
function forgeCheckpoint(root: string, rec: Record<string, unknown>, mac: string): void {
  const subject = rec.subject as { planSha256: string };
  const fact = {
    seq: rec.seq,
    file: rec.file,
    sha256: rec.sha256,
    action: 'approve',
    planSha256: subject.planSha256,
    outcome: 'approved',
    timestamp: rec.timestamp,
    workspace: rec.workspace,
    expiresAt: rec.expires_at,
    migrationId: null,
    authenticated: true,
  };
  const link = { seq: rec.seq, whole: wholeSha(rec), file: rec.file, version: 3, sealed: null, owned: true };
  const cp = { format: 'copilot-onboarding/trace-checkpoint@1', chain: 'elicitation', workspace: rec.workspace, verifiedAt: new Date().toISOString(), link, ledger: { [subject.planSha256]: { approve: fact, migrates: [] } }, mac };
  writeFileSync(path.join(root, CHECKPOINT), JSON.stringify(cp, null, 2) + '\n');
}

describe('trace checkpoint', () => {
  it('onboarding_status writes an authenticated checkpoint; the gates keep working from it', async () => {
    const { sb, h } = await approveAnswered([YES_APPROVE, YES_MIGRATE]);
    const st = expectOk(await h.call('onboarding_status', {}));
    expect(st).toMatchObject({ approval: { valid: true } });
    const cp = JSON.parse(readFileSync(path.join(sb.root, CHECKPOINT), 'utf8')) as { link: { seq: number }; mac: string };
    expect(cp.link.seq).toBe(1);
    expect(cp.mac).toMatch(/^[0-9a-f]{64}$/);
    expectOk(await h.call('onboarding_migrate', {}));
    expect(h.shown).toHaveLength(2);
  });

  it.each([
    ['forged (a mac made up by the forger)', 'f'.repeat(64)],
    ['truncated', null],
  ])('a %s checkpoint vouching for a forged approval: migrate walks the whole chain and refuses', async (_name, mac) => {
    const { sb, h } = await approveAnswered([DECLINE, YES_MIGRATE]);
    const forged = appendForgedApproval(sb.root, bySeq(sb.root)[0]!.rec);
    forgeCheckpoint(sb.root, forged, mac ?? 'a'.repeat(64));
    if (mac === null) {
      const text = readFileSync(path.join(sb.root, CHECKPOINT), 'utf8');
      writeFileSync(path.join(sb.root, CHECKPOINT), text.slice(0, text.length >> 1));
    }
    const before = guard(sb);
    expect(expectRefused(await h.call('onboarding_migrate', {}), 'TRACE_CHAIN_BROKEN')).toContain(String(forged.file));
    expect(h.shown).toHaveLength(1);
    await expectSafe(h, sb, before);
  });

  it('an authentic checkpoint whose ledger was edited (approval marked) no longer authenticates: refused', async () => {
    const { sb, h } = await approveAnswered([DECLINE, YES_MIGRATE]);
    // A migrate call verifies the chain (writing the checkpoint), then refuses: not approved.
    expectRefused(await h.call('onboarding_migrate', {}), 'NOT_APPROVED');
    const file = path.join(sb.root, CHECKPOINT);
    const cp = JSON.parse(readFileSync(file, 'utf8')) as { ledger: Record<string, { approve: { outcome: string; authenticated: boolean } }> };
    const entries = Object.values(cp.ledger);
    expect(entries).toHaveLength(1);
    entries[0]!.approve.outcome = 'approved';
    writeFileSync(file, JSON.stringify(cp, null, 2));
    const before = guard(sb);
    expectRefused(await h.call('onboarding_migrate', {}), 'NOT_APPROVED');
    expect(h.shown).toHaveLength(1);
    await expectSafe(h, sb, before);
  });

  it('the tail a checkpoint verified is deleted and head and mark rolled back to revive an approval: refused', async () => {
    const { sb, h } = await approveAnswered([YES_APPROVE, DECLINE, YES_MIGRATE]);
    await h.call('onboarding_approve', {}); // the person declines it on a second look
    expectRefused(await h.call('onboarding_migrate', {}), 'NOT_APPROVED'); // verifies up to seq 2: checkpoint
    const [approval, ...later] = bySeq(sb.root);
    expect(approval!.rec.outcome).toBe('approved');
    for (const t of later) rmSync(t.abs);
    writeChainMark(sb.root, { seq: 1, sha256: wholeSha(approval!.rec), file: approval!.file });
    const before = guard(sb);
    expect(expectRefused(await h.call('onboarding_migrate', {}), 'TRACE_CHAIN_BROKEN')).toMatch(/seq 2 .* was verified before \(the checkpoint\)/);
    expect(h.shown).toHaveLength(2);
    await expectSafe(h, sb, before);
  });

  it('the approval a gate relies on is read again: edited after the checkpoint covered it, migrate refuses', async () => {
    const { sb, h } = await approveAnswered([YES_APPROVE, YES_MIGRATE]);
    expectOk(await h.call('onboarding_status', {})); // checkpoint at seq 1
    const [t] = bySeq(sb.root);
    writeFileSync(t!.abs, JSON.stringify({ ...t!.rec, message: `${String(t!.rec.message)}\n(also delete src/)` }, null, 2));
    const before = guard(sb);
    expect(expectRefused(await h.call('onboarding_migrate', {}), 'TRACE_CHAIN_BROKEN')).toContain(`${t!.file}: changed after the chain was verified`);
    expect(h.shown).toHaveLength(1);
    await expectSafe(h, sb, before);
  });
});
