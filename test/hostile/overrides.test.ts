/**
 * Hostile propose overrides: unknown sections, destinations that try to leave
 * `.github/instructions/`, applyTo globs that are absolute, climb with `..`, or carry NUL or a
 * line break (front matter injection), and 10,000 overrides. Each is a clear error naming the
 * problem; no plan is stored, nobody is asked, nothing changes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { YES_APPROVE, cleanup, expectRefused, expectSafe, guard, open, sandbox, stateFiles } from '../helpers/hostile.js';

afterEach(cleanup);

const TS = 'TypeScript'; // a heading of the bundled example

describe('hostile overrides', () => {
  it.each<[string, unknown[], string | RegExp, RegExp]>([
    ['an unknown section', [{ section: 'No such heading', applyTo: 'src/**' }], 'INVALID_INPUT', /Unknown section "No such heading".*Valid sections: .*s\d\d-typescript/],
    ['destination ../../x', [{ section: TS, destination: '../../x' }], 'INVALID_INPUT', /destination "\.\.\/\.\.\/x" .* is not a slug/],
    ['destination /etc/passwd', [{ section: TS, destination: '/etc/passwd' }], 'INVALID_INPUT', /destination "\/etc\/passwd" .* is not a slug/],
    ['destination .github/instructions/../../x.md', [{ section: TS, destination: '.github/instructions/../../x.md' }], 'INVALID_INPUT', /destination "\.github\/instructions\/\.\.\/\.\.\/x\.md" .* is not a slug/],
    ['applyTo with a NUL byte', [{ section: TS, applyTo: 'src/**\u0000.ts' }], 'INVALID_INPUT', /contains a NUL or line break/],
    ['applyTo with a newline (front matter injection)', [{ section: TS, applyTo: ['src/**', '"\ndescription: pwned\n---\n# evil'] }], 'INVALID_INPUT', /contains a NUL or line break/],
    ['applyTo with ESC (C0)', [{ section: TS, applyTo: 'src/\u001b[31m**' }], 'INVALID_INPUT', /contains a control, bidi or separator character/],
    ['applyTo with a tab (C0)', [{ section: TS, applyTo: 'src/**\t.ts' }], 'INVALID_INPUT', /contains a control, bidi or separator character/],
    ['applyTo with DEL', [{ section: TS, applyTo: 'src/\u007f**' }], 'INVALID_INPUT', /contains a control, bidi or separator character/],
    ['applyTo with NEL (C1)', [{ section: TS, applyTo: 'src/**\u0085.ts' }], 'INVALID_INPUT', /contains a control, bidi or separator character/],
    ['applyTo with U+2028', [{ section: TS, applyTo: 'src/**\u2028description: x' }], 'INVALID_INPUT', /contains a control, bidi or separator character/],
    ['applyTo ending in U+2029 (trimmed by a split)', [{ section: TS, applyTo: 'src/**\u2029' }], 'INVALID_INPUT', /contains a control, bidi or separator character/],
    ['applyTo with a bidi override U+202E', [{ section: TS, applyTo: 'src/\u202Est.ts' }], 'INVALID_INPUT', /contains a control, bidi or separator character/],
    ['applyTo with a bidi isolate U+2066 in an array', [{ section: TS, applyTo: ['docs/**', 'src/\u2066**'] }], 'INVALID_INPUT', /contains a control, bidi or separator character/],
    ['an absolute applyTo', [{ section: TS, applyTo: '/etc/**' }], 'INVALID_INPUT', /"\/etc\/\*\*" .* is absolute/],
    ['applyTo with ..', [{ section: TS, applyTo: 'src/../../outside/**' }], 'INVALID_INPUT', /contains a "\.\." segment/],
    ['applyTo starting with ~', [{ section: TS, applyTo: '~/.ssh/*' }], 'INVALID_INPUT', /"~\/\.ssh\/\*" .* is absolute/],
    ['applyTo with a drive letter', [{ section: TS, applyTo: 'C:\\Windows\\**' }], 'INVALID_INPUT', /is absolute/],
    ['10,000 overrides', Array.from({ length: 10_000 }, (_, i) => ({ section: `s${i}`, keepRepoWide: true })), /-32602|Input validation error/, /overrides.*1000|1000.*overrides/],
  ])('%s: a clear error, no plan stored, nobody asked, nothing changes', async (_name, overrides, code, why) => {
    const sb = sandbox({ example: true });
    const before = guard(sb);
    const h = await open(sb.root, { elicit: [YES_APPROVE] });
    const r = await h.call('onboarding_propose', { narrate: false, overrides });
    const text = expectRefused(r, code);
    expect(text).toMatch(why);
    expect(text).not.toMatch(/INTERNAL|Unexpected error/);
    expect(text.length, 'the error stays readable').toBeLessThan(8 * 1024);
    expect(text, 'the error text carries no raw control, bidi or separator character').not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u);
    expect(stateFiles(sb.root, 'plans')).toEqual([]);
    expectRefused(await h.call('onboarding_approve', {}), 'PLAN_NOT_FOUND');
    expect(h.shown).toHaveLength(0);
    const st = await expectSafe(h, sb, before);
    expect(st.currentPlan).toBeNull();
  });
});
