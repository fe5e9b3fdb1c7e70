/**
 * core/approval.ts: the gate's decision from the ledger of decision facts. A ledger folded in two
 * steps (checkpoint, then the traces after it) decides as one folded at once; an approval that
 * does not authenticate with the per-user key is never honoured.
 */
import { describe, expect, it } from 'vitest';
import { findApproval, foldDecisions, type DecisionFact } from '../../server/src/core/approval.js';
import type { Plan } from '../../server/src/schemas/plan.js';

const SHA = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);
const plan = { planId: 'p1', sha256: SHA } as Plan;
const NOW = new Date('2026-11-25T12:00:00.000Z');
const TTL = 3_600_000;
const WS = 'f'.repeat(32);

let seq = 0;
function fact(over: Partial<DecisionFact>): DecisionFact {
  seq++;
  return {
    seq,
    file: `t${seq}.json`,
    sha256: 'c'.repeat(64),
    action: 'approve',
    planSha256: SHA,
    outcome: 'approved',
    timestamp: '2026-11-25T11:30:00.000Z',
    workspace: WS,
    expiresAt: '2026-11-25T12:30:00.000Z',
    migrationId: null,
    authenticated: true,
    ...over,
  };
}

const decide = (facts: DecisionFact[], started: string[] = []) => findApproval(plan, foldDecisions({}, facts), NOW, TTL, WS, new Set(started));

describe('findApproval over the decision ledger', () => {
  it('an authenticated, unexpired, unused approval of this plan in this workspace holds', () => {
    const res = decide([fact({})]);
    expect(res.ok).toBe(true);
  });

  it('an approval that does not authenticate with the per-user key is refused, whatever else it says', () => {
    const res = decide([fact({ authenticated: false })]);
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.error.message).toMatch(/does not authenticate with this user's trace key/);
  });

  it('the last approve decides; a confirmed migrate that started spends it; other plans do not count', () => {
    expect(decide([fact({}), fact({ outcome: 'declined' })]).ok).toBe(false);
    expect(decide([fact({}), fact({ action: 'migrate', migrationId: 'm1' })], ['m1']).ok).toBe(false);
    expect(decide([fact({}), fact({ action: 'migrate', migrationId: 'm1' })], []).ok).toBe(true);
    expect(decide([fact({ planSha256: OTHER })]).ok).toBe(false);
  });

  it('folded in two steps (a checkpoint, then later traces) it decides as folded at once', () => {
    const facts = [fact({}), fact({ action: 'migrate', migrationId: 'm1' }), fact({ planSha256: OTHER }), fact({ outcome: 'declined' }), fact({}), fact({ action: 'migrate', migrationId: 'm2' })];
    for (let cut = 0; cut <= facts.length; cut++) {
      const twoSteps = foldDecisions(foldDecisions({}, facts.slice(0, cut)), facts.slice(cut));
      expect(twoSteps).toEqual(foldDecisions({}, facts));
    }
    const ledger = foldDecisions({}, facts);
    for (const started of [[], ['m1'], ['m2']]) {
      expect(findApproval(plan, ledger, NOW, TTL, WS, new Set(started)).ok).toBe(!started.includes('m2'));
    }
  });
});
