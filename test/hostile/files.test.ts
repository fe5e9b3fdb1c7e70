/**
 * Hostile file contents in `.github/copilot-instructions.md`: binary, huge, invalid UTF-8 and
 * NUL bytes are refused (listed by analyze with the reason, propose says why, nobody is
 * asked); odd but valid text (a BOM in the middle, CR-only line endings, odd front matter)
 * migrates losslessly and rolls back byte for byte; blank files have nothing to migrate.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { textOf } from '../helpers/harness.js';
import { YES_APPROVE, YES_MIGRATE, YES_ROLLBACK, cleanup, expectOk, expectRefused, expectSafe, guard, open, readJson, roundTrip, sandbox, wsDigest } from '../helpers/hostile.js';
import { put } from '../helpers/files.js';

afterEach(cleanup);

const REPO = '.github/copilot-instructions.md';
/** A real 1×1 PNG. */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cf00000301010018dd8db00000000049454e44ae426082',
  'hex',
);
const BIG = 50 * 1024 * 1024;

describe('refused sources', () => {
  it.each<[string, () => Buffer, RegExp]>([
    ['PNG bytes', () => PNG, /binary|NUL/i],
    ['a 50 MB file', () => Buffer.concat([Buffer.from('# Huge\n\n'), Buffer.alloc(BIG, 'lorem ipsum dolor\n')]), /limit/],
    ['invalid UTF-8', () => Buffer.concat([Buffer.from('# Title\n\nCaf'), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from(' au lait\n\n## TypeScript\n\n- `src/**/*.ts`\n')]), /UTF-8/],
    ['NUL bytes in Markdown', () => Buffer.from('# Title\n\nBe concise.\0\0\n\n## TypeScript\n\n- strict in `src/**/*.ts`\n'), /NUL byte at offset 20/],
  ])('%s: analyze lists it as refused with the reason, propose refuses, nobody is asked, nothing changes', async (_name, bytes, reason) => {
    const sb = sandbox();
    put(sb.root, 'src/a.ts', 'export const a = 1;\n');
    put(sb.root, REPO, bytes());
    const before = guard(sb);
    const h = await open(sb.root, { elicit: [YES_APPROVE] });

    const t0 = Date.now();
    const a = expectOk(await h.call('onboarding_analyze', { narrate: false }));
    const refused = a.refused as Array<{ path: string; reason: string }>;
    expect(refused.map((r) => r.path)).toEqual([REPO]);
    expect(refused[0]!.reason).toMatch(reason);
    expect(a.sources).toEqual([]);
    const p = await h.call('onboarding_propose', { narrate: false });
    const text = expectRefused(p, 'SOURCE_REFUSED');
    expect(text).toContain(REPO);
    expect(text).toMatch(reason);
    const elapsed = Date.now() - t0;
    // The size cap is checked before reading: a 50 MB file costs no more than a small one.
    expect(elapsed, `analyze + propose took ${elapsed} ms`).toBeLessThan(2000);

    expectRefused(await h.call('onboarding_approve', {}), 'PLAN_NOT_FOUND');
    expect(h.shown).toHaveLength(0);
    await expectSafe(h, sb, before);
  });
});

describe('odd but valid text', () => {
  it('a BOM at the start and in the middle: migrates losslessly (the inner BOMs land in the output verbatim), rollback byte-exact', async () => {
    const sb = sandbox();
    put(sb.root, 'src/a.ts', 'export const a = 1;\n');
    put(sb.root, REPO, '\uFEFF# Project\n\nBe concise.\uFEFF\n\n## TypeScript\n\n- \uFEFFstrict in `src/**/*.ts`\n');
    const { plan, created } = await roundTrip(sb, [{ section: 'TypeScript', applyTo: 'src/**/*.ts' }]);
    expect(created).toEqual(['.github/instructions/typescript.instructions.md']);
    const stored = await readJson<{ operations: Array<{ path: string; content: string | null }> }>(path.join(sb.root, plan.planFile as string));
    const byPath = new Map(stored.operations.map((o) => [o.path, o.content ?? '']));
    expect(byPath.get(created[0]!)).toContain('- \uFEFFstrict in `src/**/*.ts`\n');
    expect(byPath.get(REPO)).toBe('\uFEFF# Project\n\nBe concise.\uFEFF\n\n');
  });

  it('CR-only line endings: the section is moved byte for byte (CRs kept, no LF invented), rollback byte-exact', async () => {
    const sb = sandbox();
    put(sb.root, 'src/a.ts', 'export const a = 1;\n');
    const section = '## TypeScript\r\r- strict in `src/**/*.ts`\r- no `any`\r';
    put(sb.root, REPO, `# Project\r\rBe concise.\r\r${section}`);
    const h = await open(sb.root, { elicit: [YES_APPROVE, YES_MIGRATE, YES_ROLLBACK] });
    const before = guard(sb);
    expectOk(await h.call('onboarding_propose', { narrate: false, overrides: [{ section: 'TypeScript', applyTo: 'src/**/*.ts' }] }));
    expectOk(await h.call('onboarding_approve', {}));
    expect(expectOk(await h.call('onboarding_migrate', {}))).toMatchObject({ migrated: true, verified: true });
    const out = readFileSync(path.join(sb.root, '.github/instructions/typescript.instructions.md'), 'latin1');
    expect(out).toContain(section);
    expect(out, "the generated front matter follows the file's CR line endings").not.toContain('\n');
    expect(readFileSync(path.join(sb.root, REPO), 'latin1')).not.toContain('\n');
    await expectSafe(h, sb, before, { changed: true });
    expectOk(await h.call('onboarding_rollback', {}));
    expect(wsDigest(sb.root)).toEqual(before.ws);
    await expectSafe(h, sb, before);
  });

  it.each([
    ['empty', ''],
    ['whitespace-only', '  \n\t\n   \r\n\n'],
  ])('%s file: nothing to migrate, said clearly; approve refuses NOTHING_TO_MIGRATE without asking', async (_name, content) => {
    const sb = sandbox();
    put(sb.root, 'src/a.ts', 'export const a = 1;\n');
    put(sb.root, REPO, content);
    const before = guard(sb);
    const h = await open(sb.root, { elicit: [YES_APPROVE] });
    const p = await h.call('onboarding_propose', { narrate: false });
    expect(p.isError, textOf(p)).toBeFalsy();
    expect(p.structuredContent).toMatchObject({ nothingToMigrate: true, operations: [] });
    expect(textOf(p)).toMatch(/Nothing to migrate/);
    expectRefused(await h.call('onboarding_approve', {}), 'NOTHING_TO_MIGRATE');
    expectRefused(await h.call('onboarding_migrate', {}), 'NOTHING_TO_MIGRATE');
    expect(h.shown).toHaveLength(0);
    await expectSafe(h, sb, before);
  });
});

describe('front matter in copilot-instructions.md', () => {
  it('front matter that is not YAML: reported as INVALID_FRONT_MATTER, kept in the repository-wide file; migrate + rollback byte-exact', async () => {
    const sb = sandbox();
    put(sb.root, 'src/a.ts', 'export const a = 1;\n');
    put(sb.root, REPO, '---\n: : [unclosed {\n\t- x: *nowhere\n---\n# Project\n\nBe concise.\n\n## TypeScript\n\n- strict in `src/**/*.ts`\n');
    const h = await open(sb.root);
    const a = expectOk(await h.call('onboarding_analyze', { narrate: false }));
    const p = (a.problems as Array<{ code: string; path: string }>).find((x) => x.code === 'INVALID_FRONT_MATTER');
    expect(p?.path).toBe(REPO);
    const { plan } = await roundTrip(sb, [{ section: 'TypeScript', applyTo: 'src/**/*.ts' }]);
    const fm = (plan.sections as Array<{ title: string; destination: string }>).find((s) => s.title === 'Front matter');
    expect(fm?.destination).toBe(REPO);
  });

  it('unclosed front matter: read as plain text (no front matter section), nothing lost; migrate + rollback byte-exact', async () => {
    const sb = sandbox();
    put(sb.root, 'src/a.ts', 'export const a = 1;\n');
    put(sb.root, REPO, '---\napplyTo: "**"\ndescription: never closed\n# Project\n\nBe concise.\n\n## TypeScript\n\n- strict in `src/**/*.ts`\n');
    const h = await open(sb.root);
    const a = expectOk(await h.call('onboarding_analyze', { narrate: false }));
    expect((a.sections as Array<{ kind: string }>).map((s) => s.kind)).not.toContain('frontmatter');
    await roundTrip(sb, [{ section: 'TypeScript', applyTo: 'src/**/*.ts' }]);
  });
});

describe('non-files at a destination', () => {
  it('a folder and a FIFO named like the destinations propose would pick: propose picks other names, approve and migrate succeed, both stay as they were', async () => {
    const sb = sandbox({ example: true });
    const dir = '.github/instructions/typescript.instructions.md';
    const fifo = '.github/instructions/react.instructions.md';
    mkdirSync(path.join(sb.root, dir), { recursive: true });
    put(sb.root, `${dir}/keep.txt`, 'a folder that happens to have this name\n');
    let haveFifo = false;
    try {
      execFileSync('mkfifo', [path.join(sb.root, fifo)]);
      haveFifo = true;
    } catch {
      /* no mkfifo on this machine: the folder case still runs */
    }
    const h = await open(sb.root, { elicit: [YES_APPROVE, YES_MIGRATE] });
    const plan = expectOk(await h.call('onboarding_propose', { narrate: false }));
    const creates = (plan.operations as Array<{ op: string; path: string }>).filter((o) => o.op === 'create').map((o) => o.path);
    expect(creates).toContain('.github/instructions/typescript-2.instructions.md');
    expect(creates).not.toContain(dir);
    if (haveFifo) {
      expect(creates).toContain('.github/instructions/react-2.instructions.md');
      expect(creates).not.toContain(fifo);
    }
    const before = guard(sb);
    expectOk(await h.call('onboarding_approve', {}));
    const m = expectOk(await h.call('onboarding_migrate', {}));
    expect(m).toMatchObject({ migrated: true, verified: true });
    expect(h.shown).toHaveLength(2);
    const after = wsDigest(sb.root);
    expect(after[`${dir}/`]).toBe('dir');
    expect(after[`${dir}/keep.txt`]).toBe(before.ws[`${dir}/keep.txt`]);
    if (haveFifo) expect(after[fifo]).toBe(before.ws[fifo]);
    await expectSafe(h, sb, before, { changed: true });
  });
});
