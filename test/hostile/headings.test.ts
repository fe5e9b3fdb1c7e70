/**
 * Hostile headings: whatever a heading says (`../../x`, `CON`, 500 characters, 50 copies, only
 * emoji or invisible characters), it is just text. Each heading section is sent to a
 * path-specific file by override; the output names are safe, unique slugs directly under
 * `.github/instructions/`, the migration writes nothing else, and rollback restores every byte.
 */
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../server/src/cli/program.js';
import { textOf } from '../helpers/harness.js';
import { cleanup, expectOk, open, roundTrip, sandbox } from '../helpers/hostile.js';
import { put } from '../helpers/files.js';

afterEach(cleanup);

/** Windows device names, with or without an extension, cannot be file names there. */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|clock\$?|com[0-9]|lpt[0-9]|conin\$|conout\$)(\.|$)/i;

const HEADINGS: Array<[name: string, lines: string[]]> = [
  ['../../etc/passwd', ['## ../../etc/passwd']],
  ['..\\..\\x (backslashes)', ['## ..\\..\\x']],
  ['/abs (absolute)', ['## /abs']],
  ['.github/../../x', ['## .github/../../x']],
  ['CON', ['## CON']],
  ['nul', ['## nul']],
  ['COM1', ['## COM1']],
  ['aux.txt', ['## aux.txt']],
  ['500 characters', [`## ${'very long heading '.repeat(28).slice(0, 500)}`]],
  ['the same heading ×50', Array.from({ length: 50 }, () => '## Testing')],
  ['emoji only', ['## 🚀🔥✨']],
  ['RTL override and zero-width characters', ['## \u202Egnitset\u202C\u200B\u200D\u2060\uFEFF']],
  ['control characters (BEL, ESC, DEL, ANSI colour)', ['## \u0007\u001b[31mred\u001b[0m\u007f\u0008']],
  ['only # characters', ['## #', '## ###', '## ####']],
];

describe('hostile headings', () => {
  it.each(HEADINGS)('heading %s: safe unique slugs under .github/instructions/, migrate + rollback byte-exact', async (_name, lines) => {
    const sb = sandbox();
    put(sb.root, 'src/a.ts', 'export const a = 1;\n');
    const body = lines.map((l, i) => `${l}\n\n- rule ${i + 1} for this part.\n`).join('\n');
    put(sb.root, '.github/copilot-instructions.md', `# Project\n\nBe concise.\n\n${body}`);

    // Every heading section gets an applyTo of its own by override that names no topic or folder
    // (one file per scope), so each file is its own and its slug comes from the heading.
    const probe = await open(sb.root);
    const a = expectOk(await probe.call('onboarding_analyze', { narrate: false }));
    const headed = (a.sections as Array<{ id: string; kind: string }>).filter((s) => s.kind === 'heading');
    expect(headed).toHaveLength(lines.length);
    const overrides = headed.map((s, i) => ({ section: s.id, applyTo: `src/**/*.ts,**/x${i}.ts` }));

    const { plan, created } = await roundTrip(sb, overrides);
    expect(created).toHaveLength(lines.length);
    for (const c of created) {
      expect(path.posix.dirname(c)).toBe('.github/instructions');
      const slug = path.posix.basename(c).replace(/\.instructions\.md$/, '');
      expect(slug.length, slug).toBeLessThanOrEqual(64);
      expect(slug).not.toMatch(WINDOWS_RESERVED);
    }
    // Every section landed in its own file (no two headings were merged by accident).
    const dests = (plan.sections as Array<{ id: string; destination: string }>).filter((s) => headed.some((h) => h.id === s.id)).map((s) => s.destination);
    expect(new Set(dests).size).toBe(lines.length);
  });
});

/** Raw C0 (but LF), DEL, C1, bidi, separators and BOM: what must never reach a person. */
const RAW_UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/u;

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const code = await runCli({ argv: ['node', 'copilot-onboarding', ...args], cwd: process.cwd(), env: {}, stdout, stderr, isTTY: false });
  return { code, out, err };
}

describe('hostile headings and file names in what a person reads', () => {
  it('analyze and propose (CLI text, CLI --json, MCP tool text) show titles and paths escaped', async () => {
    const sb = sandbox();
    put(sb.root, 'src/a.ts', 'export const a = 1;\n');
    const evil = '\u001b[31mred\u001b[0m \u202Egnitset\u202C \u2028forged \u0085 \u2066x\u2069';
    put(sb.root, '.github/copilot-instructions.md', `# Project\n\nBe concise.\n\n## ${evil}\n\n- rule for src/**/*.ts files.\n\n## TypeScript\n\n- Use strict mode in src/**/*.ts.\n`);
    put(sb.root, `.github/instructions/\u001b]8;;x\u0007\u202Eevil.instructions.md`, '---\napplyTo: "src/**"\n---\n- keep.\n');

    const texts: Array<[string, string]> = [];
    const analyze = await cli(['analyze', '-w', sb.root]);
    texts.push(['cli analyze', analyze.out + analyze.err]);
    expect(analyze.out).toContain('\\x1B[31mred\\x1B[0m \\u202Egnitset\\u202C \\u2028forged \\x85 \\u2066x\\u2069');
    const analyzeJson = await cli(['analyze', '-w', sb.root, '--json']);
    texts.push(['cli analyze --json', analyzeJson.out + analyzeJson.err]);
    expect((JSON.parse(analyzeJson.out) as { data: { sections: Array<{ title: string }> } }).data.sections.map((x) => x.title)).toContain(evil);
    const propose = await cli(['propose', '-w', sb.root]);
    texts.push(['cli propose', propose.out + propose.err]);
    const h = await open(sb.root);
    texts.push(['onboarding_analyze', textOf(await h.call('onboarding_analyze', { narrate: false }))]);
    texts.push(['onboarding_propose', textOf(await h.call('onboarding_propose', { narrate: false }))]);
    texts.push(['onboarding_status', textOf(await h.call('onboarding_status', {}))]);
    for (const [where, text] of texts) {
      expect(text.length, where).toBeGreaterThan(0);
      expect(text, where).not.toMatch(RAW_UNSAFE);
    }
    expect(texts.filter(([, t]) => t.includes('\\u202E')).map(([w]) => w)).toEqual(expect.arrayContaining(['cli analyze', 'cli propose', 'onboarding_analyze', 'onboarding_propose']));
  });
});
