import { describe, expect, it } from 'vitest';
import { decide, gateSchema, questionSchema } from '../../server/src/core/gates.js';
import { sdkTimeout, NO_TIMEOUT_MS, configFromEnv } from '../../server/src/runtime/config.js';

const gate = { kind: 'gate' as const, requiredTrue: ['confirmed', 'understood_risks'] };

describe('decide (gate)', () => {
  it('approves only accept with every required field literally true', () => {
    expect(decide(gate, { action: 'accept', content: { confirmed: true, understood_risks: true } }).outcome).toBe('approved');
  });
  it.each([
    ['decline', { action: 'decline' }, 'declined'],
    ['cancel', { action: 'cancel' }, 'cancelled'],
    ['accept without content', { action: 'accept' }, 'declined'],
    ['accept with null content', { action: 'accept', content: null }, 'declined'],
    ['false', { action: 'accept', content: { confirmed: false, understood_risks: true } }, 'declined'],
    ['missing field', { action: 'accept', content: { confirmed: true } }, 'declined'],
    ['"true" string', { action: 'accept', content: { confirmed: 'true', understood_risks: true } }, 'error'],
    ['1 number', { action: 'accept', content: { confirmed: 1, understood_risks: true } }, 'error'],
    ['unknown action', { action: 'yes' }, 'error'],
    ['no response', null, 'error'],
    ['array content', { action: 'accept', content: [true, true] }, 'declined'],
  ])('%s is not approved', (_n, resp, outcome) => {
    const d = decide(gate, resp as never);
    expect(d.outcome).toBe(outcome);
    expect(d.reason).toBeTruthy();
  });
  it('ignores extra fields but still needs the required ones', () => {
    expect(decide(gate, { action: 'accept', content: { confirmed: true, understood_risks: true, approved: true, extra: 'x' } }).outcome).toBe('approved');
  });
});

describe('decide (question)', () => {
  const q = { kind: 'question' as const, answerField: 'answer', maxLength: 10 };
  it('answers with a string', () => {
    expect(decide(q, { action: 'accept', content: { answer: 'Option A' } })).toMatchObject({ outcome: 'answered', answer: 'Option A' });
  });
  it('rejects wrong types, empty and too long answers', () => {
    expect(decide(q, { action: 'accept', content: { answer: 42 } }).outcome).toBe('error');
    expect(decide(q, { action: 'accept', content: { answer: '   ' } }).outcome).toBe('error');
    expect(decide(q, { action: 'accept', content: { answer: 'x'.repeat(11) } }).outcome).toBe('error');
    expect(decide(q, { action: 'decline' }).outcome).toBe('declined');
  });
});

describe('schemas', () => {
  it('booleans default to false and are required; strings optional', () => {
    const s = gateSchema([{ name: 'approved', title: 'Approve', description: 'd' }], [{ name: 'comment', title: 'C', description: 'd' }]);
    expect(s).toEqual({
      type: 'object',
      properties: {
        approved: { type: 'boolean', title: 'Approve', description: 'd', default: false },
        comment: { type: 'string', title: 'C', description: 'd' },
      },
      required: ['approved'],
    });
    expect(questionSchema({ name: 'answer', title: 'A', description: 'd' }).required).toEqual(['answer']);
  });
});

describe('timeouts', () => {
  it('never hands Infinity, 0 or >= 2^31 to the SDK timer', () => {
    expect(sdkTimeout(0)).toBe(NO_TIMEOUT_MS);
    expect(sdkTimeout(Infinity)).toBe(NO_TIMEOUT_MS);
    expect(sdkTimeout(2 ** 31)).toBe(NO_TIMEOUT_MS);
    expect(sdkTimeout(-5)).toBe(NO_TIMEOUT_MS);
    expect(sdkTimeout(1500)).toBe(1500);
    expect(NO_TIMEOUT_MS).toBe(2 ** 31 - 1);
  });
  it('reads config from env and rejects nonsense', () => {
    expect(configFromEnv({}).approvalTimeoutMs).toBe(180_000);
    expect(configFromEnv({ COPILOT_ONBOARDING_APPROVAL_TIMEOUT_MS: '0' }).approvalTimeoutMs).toBe(0);
    expect(() => configFromEnv({ COPILOT_ONBOARDING_APPROVAL_TIMEOUT_MS: 'soon' })).toThrow(/whole number/);
    expect(() => configFromEnv({ COPILOT_ONBOARDING_APPROVAL_TIMEOUT_MS: '-1' })).toThrow();
  });
});
