/**
 * Hostile YAML front matter in existing `.instructions.md` files and in question files.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, expectOk, expectSafe, guard, open, sandbox, write } from '../helpers/hostile.js';

afterEach(cleanup);

describe('applyTo that is not a string', () => {
  it.each([
    ['a YAML mapping', 'applyTo: {a: 1}'],
    ['a number', 'applyTo: 42'],
  ])('applyTo as %s is not reported as a working unquoted string', async (_name, line) => {
    const sb = sandbox();
    write(sb.root, '.github/copilot-instructions.md', '# Project\n\nBe concise.\n');
    write(sb.root, '.github/instructions/x.instructions.md', `---\n${line}\n---\n\n# X\n\nbody\n`);
    const before = guard(sb);
    const h = await open(sb.root);
    const a = expectOk(await h.call('onboarding_analyze', { narrate: false }));
    const existing = (a.existingInstructions as Array<{ path: string; applyToShape: string }>)[0]!;
    expect(existing.applyToShape).not.toBe('unquoted-string');
    const p = (a.problems as Array<{ code: string; severity: string; message: string }>).find((x) => x.code === 'MALFORMED_APPLY_TO');
    expect(p?.severity, p?.message).not.toBe('info');
    expect(p?.message ?? '').not.toMatch(/it works/);
    await expectSafe(h, sb, before);
  });
});
