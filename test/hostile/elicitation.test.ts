/**
 * Hostile elicitation answers: wrong types, wrong actions, extra fields, huge strings. Only
 * `accept` with the booleans literally true approves; nothing a client sends can bloat the
 * state or the traces. A raw JSON-RPC client answers the forms, so no SDK validation on the
 * client side filters what the server receives.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { textOf } from '../helpers/harness.js';
import { cleanup, closeRawClients, expectOk, expectRefused, expectSafe, guard, open, rawClient, sandbox, traceRecords } from '../helpers/hostile.js';

afterEach(async () => {
  await closeRawClients();
  await cleanup();
});

describe('answers that must never approve', () => {
  it.each<[string, () => unknown]>([
    ['approved: "true" (a string)', () => ({ action: 'accept', content: { approved: 'true' } })],
    ['approved: 1', () => ({ action: 'accept', content: { approved: 1 } })],
    ['approved: [true]', () => ({ action: 'accept', content: { approved: [true] } })],
    ['approved: {valueOf: true}', () => ({ action: 'accept', content: { approved: { valueOf: true } } })],
    ['action "yes"', () => ({ action: 'yes', content: { approved: true } })],
    ['action "ACCEPT"', () => ({ action: 'ACCEPT', content: { approved: true } })],
    ['content: []', () => ({ action: 'accept', content: [] })],
    ['content: "approved"', () => ({ action: 'accept', content: 'approved' })],
    ['a __proto__ trick ({"__proto__": {"approved": true}} as parsed from the wire)', () => JSON.parse('{"action":"accept","content":{"__proto__":{"approved":true}}}')],
    ['{confirmed: true} (the migrate form\'s field) on approve', () => ({ action: 'accept', content: { confirmed: true, understood_risks: true } })],
  ])('%s: not approved, no approval recorded, migrate still refuses without asking', async (_name, answer) => {
    const sb = sandbox({ example: true });
    const rc = await rawClient(sb.root, answer);
    expectOk(await rc.call('onboarding_propose', { narrate: false }));
    const before = guard(sb);
    const r = await rc.call('onboarding_approve', {});
    expectRefused(r, 'NOT_CONFIRMED');
    expect(r.structuredContent).toMatchObject({ approved: false });
    const traces = traceRecords(sb.root);
    expect(traces.map((t) => t.rec.outcome)).toEqual([expect.not.stringMatching(/^approved$/)]);
    const st = await rc.call('onboarding_status', {});
    expect(st.structuredContent).toMatchObject({ approval: null });
    expectRefused(await rc.call('onboarding_migrate', {}), 'NOT_APPROVED');
    expect(rc.shown).toHaveLength(1);
    await expectSafe(rc, sb, before);
  });

  it('control: {approved: true, admin: true} approves (extra fields are ignored, not privileges)', async () => {
    const sb = sandbox({ example: true });
    const rc = await rawClient(sb.root, () => ({ action: 'accept', content: { approved: true, admin: true } }));
    expectOk(await rc.call('onboarding_propose', { narrate: false }));
    const before = guard(sb);
    const r = expectOk(await rc.call('onboarding_approve', {}));
    expect(r).toMatchObject({ approved: true, outcome: 'approved' });
    const st = (await rc.call('onboarding_status', {})).structuredContent as { approval: { valid: boolean } | null };
    expect(st.approval?.valid).toBe(true);
    await expectSafe(rc, sb, before);
  });
});

describe('huge answers', () => {
  it('approve with a 5 MB comment (schema maxLength 2000): not approved; onboarding.json, the result and the trace stay small', async () => {
    const sb = sandbox({ example: true });
    const h = await open(sb.root, { elicit: [{ action: 'accept', content: { approved: true, comment: 'c'.repeat(5_000_000) } }] });
    await h.call('onboarding_propose', { narrate: false });
    const before = guard(sb);
    const r = await h.call('onboarding_approve', {});
    const resultChars = JSON.stringify(r).length;
    const stateBytes = statSync(path.join(sb.root, '.copilot-state/onboarding.json')).size;
    expect(resultChars, `tool result is ${resultChars} chars: ${textOf(r).slice(0, 200)}`).toBeLessThan(64 * 1024);
    expect(stateBytes, `onboarding.json is ${stateBytes} bytes`).toBeLessThan(64 * 1024);
    expect(expectRefused(r, 'NOT_CONFIRMED')).toMatch(/"Comment \(optional\)" is too long/);
    const traces = traceRecords(sb.root);
    expect(traces).toHaveLength(1);
    expect(statSync(traces[0]!.abs).size).toBeLessThan(100 * 1024);
    expect((await h.call('onboarding_status', {})).structuredContent).toMatchObject({ approval: null });
    await expectSafe(h, sb, before);
  });
});
