/**
 * Hostile YAML front matter in existing `.instructions.md` files and in question files:
 * applyTo values that are not a glob string are reported as malformed (never as "it works"),
 * and alias bombs are refused or skipped quickly, never expanded.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { textOf } from '../helpers/harness.js';
import { STATE, billionLaughs, cleanup, expectOk, expectSafe, guard, open, roundTrip, sandbox, stateBytes } from '../helpers/hostile.js';
import { put } from '../helpers/files.js';

afterEach(cleanup);

describe('applyTo that is not a string', () => {
  it.each([
    ['a YAML mapping', 'applyTo: {a: 1}', 'other'],
    ['a number', 'applyTo: 42', 'other'],
    ['a YAML block list', 'applyTo:\n  - "src/**"\n  - "web/**"', 'yaml-list'],
    ['a YAML flow list', 'applyTo: [src/**, web/**]', 'yaml-list'],
    ['an unquoted *', 'applyTo: *', 'alias-like'],
    ['an unquoted **/*.ts (a YAML alias)', 'applyTo: **/*.ts', 'alias-like'],
  ])('applyTo as %s is reported as malformed (a warning), not as a working unquoted string', async (_name, line, shape) => {
    const sb = sandbox();
    put(sb.root, '.github/copilot-instructions.md', '# Project\n\nBe concise.\n');
    put(sb.root, '.github/instructions/x.instructions.md', `---\n${line}\n---\n\n# X\n\nbody\n`);
    const before = guard(sb);
    const h = await open(sb.root);
    const a = expectOk(await h.call('onboarding_analyze', { narrate: false }));
    const existing = (a.existingInstructions as Array<{ path: string; applyToShape: string }>)[0]!;
    expect(existing.applyToShape).not.toBe('unquoted-string');
    expect(existing.applyToShape).toBe(shape);
    const p = (a.problems as Array<{ code: string; severity: string; message: string; path: string }>).find((x) => x.code === 'MALFORMED_APPLY_TO');
    expect(p, JSON.stringify(a.problems)).toBeDefined();
    expect(p!.path).toBe('.github/instructions/x.instructions.md');
    expect(p!.severity, p!.message).toBe('warning');
    expect(p!.message).not.toMatch(/it works/);
    await expectSafe(h, sb, before);
  });
});

describe('YAML alias bombs ("billion laughs")', () => {
  it('in the front matter of an existing .instructions.md: analyze answers quickly, reports it, expands nothing', async () => {
    const sb = sandbox();
    put(sb.root, '.github/copilot-instructions.md', '# Project\n\nBe concise.\n');
    put(sb.root, '.github/instructions/bomb.instructions.md', `---\n${billionLaughs('applyTo')}\ndescription: *l8\n---\n\n# Bomb\n\nbody\n`);
    const before = guard(sb);
    const h = await open(sb.root);
    const t0 = Date.now();
    const r = await h.call('onboarding_analyze', { narrate: false });
    const elapsed = Date.now() - t0;
    const a = expectOk(r);
    expect(elapsed, `analyze took ${elapsed} ms`).toBeLessThan(2000);
    expect(JSON.stringify(r).length, 'the result must not carry an expanded alias tree').toBeLessThan(64 * 1024);
    const existing = (a.existingInstructions as Array<{ path: string; applyToShape: string; description: string | null }>)[0]!;
    expect(existing.path).toBe('.github/instructions/bomb.instructions.md');
    expect(existing.applyToShape).not.toMatch(/quoted-string/);
    expect(existing.description).toBeNull();
    const codes = (a.problems as Array<{ code: string; path: string }>).filter((p) => p.path === existing.path).map((p) => p.code);
    expect(codes).toContain('MALFORMED_APPLY_TO');
    await expectSafe(h, sb, before);
  });

  it('in the front matter of copilot-instructions.md: analyze and propose answer quickly; migrate + rollback byte-exact', async () => {
    const sb = sandbox();
    put(sb.root, 'src/a.ts', 'export const a = 1;\n');
    put(sb.root, '.github/copilot-instructions.md', `---\n${billionLaughs('applyTo')}\n---\n# Project\n\nBe concise.\n\n## TypeScript\n\n- strict in \`src/**/*.ts\`\n`);
    const t0 = Date.now();
    const { plan } = await roundTrip(sb, [{ section: 'TypeScript', applyTo: 'src/**/*.ts' }]);
    expect(Date.now() - t0).toBeLessThan(5000);
    const fm = (plan.sections as Array<{ kind?: string; title: string; destination: string }>).find((s) => s.title === 'Front matter');
    expect(fm?.destination).toBe('.github/copilot-instructions.md');
  });

  it('in a question file: question_summary skips it quickly (listed with the reason), the good entries are still returned', async () => {
    const sb = sandbox();
    put(sb.root, `${STATE}/questions/20260101_000000_0000000aaaaaaaa_question.yaml`, 'timestamp: "2026-01-01T00:00:00.000Z"\nquestion: "Which folder?"\nanswer: "src/"\ntrace: elicitation-traces/x.json\n');
    put(sb.root, `${STATE}/questions/20260101_000001_0000000bbbbbbbb_question.yaml`, `${billionLaughs('answer')}\ntimestamp: "2026-01-01T00:00:01.000Z"\nquestion: *l8\ntrace: *l8\n`);
    const before = guard(sb);
    const bombBefore = stateBytes(sb.root, 'questions/20260101_000001_0000000bbbbbbbb_question.yaml');
    const h = await open(sb.root);
    const t0 = Date.now();
    const r = await h.call('question_summary', {});
    const elapsed = Date.now() - t0;
    const s = expectOk(r);
    expect(elapsed, `question_summary took ${elapsed} ms`).toBeLessThan(2000);
    expect(s).toMatchObject({ count: 1, total: 2 });
    expect(s.skipped).toEqual([{ file: `${STATE}/questions/20260101_000001_0000000bbbbbbbb_question.yaml`, reason: expect.stringMatching(/alias/i) }]);
    expect(s.summary).toContain('Which folder?');
    expect(textOf(r).length).toBeLessThan(16 * 1024);
    expect(stateBytes(sb.root, 'questions/20260101_000001_0000000bbbbbbbb_question.yaml')).toEqual(bombBefore);
    await expectSafe(h, sb, before);
  });
});
