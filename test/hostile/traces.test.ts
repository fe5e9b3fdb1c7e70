/**
 * Tampered trace chains: migrate must refuse with TRACE_CHAIN_BROKEN (never INTERNAL), and a
 * trace folder replaced by a file makes every gate fail closed with a clear trace error.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { textOf } from '../helpers/harness.js';
import { YES_APPROVE, YES_MIGRATE, cleanup, expectOk, expectSafe, guard, open, sandbox } from '../helpers/hostile.js';

afterEach(cleanup);

describe('trace folder replaced by a file', () => {
  it('after a valid approval: migrate fails closed with a clear trace error (not INTERNAL), asks nobody, changes nothing', async () => {
    const sb = sandbox({ example: true });
    const h = await open(sb.root, { elicit: [YES_APPROVE, YES_MIGRATE] });
    expectOk(await h.call('onboarding_propose', { narrate: false }));
    expectOk(await h.call('onboarding_approve', {}));
    const dir = path.join(sb.root, '.copilot-state/elicitation-traces');
    rmSync(dir, { recursive: true });
    writeFileSync(dir, 'not a folder\n');
    const before = guard(sb);
    const m = await h.call('onboarding_migrate', {});
    const text = textOf(m);
    expect(m.isError).toBe(true);
    expect(text).toMatch(/TRACE_CHAIN_BROKEN|TRACE_WRITE_FAILED/);
    expect(text).not.toMatch(/INTERNAL|Unexpected error/);
    expect(h.shown).toHaveLength(1); // only the approval form, never the migrate form
    await expectSafe(h, sb, before);
  });
});
