/**
 * Hostile elicitation answers: wrong types, extra fields, huge strings. Only `accept` with the
 * booleans literally true approves; nothing a client sends can bloat the state or the traces.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { textOf } from '../helpers/harness.js';
import { cleanup, expectSafe, guard, open, sandbox } from '../helpers/hostile.js';

afterEach(cleanup);

describe('huge answers', () => {
  it('approve with a 5 MB comment (schema maxLength 2000): refused or bounded; onboarding.json, the result and the trace stay small', async () => {
    const sb = sandbox({ example: true });
    const h = await open(sb.root, { elicit: [{ action: 'accept', content: { approved: true, comment: 'c'.repeat(5_000_000) } }] });
    await h.call('onboarding_propose', { narrate: false });
    const before = guard(sb);
    const r = await h.call('onboarding_approve', {});
    const resultChars = JSON.stringify(r).length;
    const stateBytes = statSync(path.join(sb.root, '.copilot-state/onboarding.json')).size;
    expect(resultChars, `tool result is ${resultChars} chars: ${textOf(r).slice(0, 200)}`).toBeLessThan(64 * 1024);
    expect(stateBytes, `onboarding.json is ${stateBytes} bytes`).toBeLessThan(64 * 1024);
    await expectSafe(h, sb, before);
  });
});
