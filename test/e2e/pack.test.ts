/**
 * The package as a user gets it: `npm pack` of the built tree, installed from the tarball into a
 * temporary prefix with no network (an empty npm cache, `--offline`, and an unreachable
 * registry), then the installed bin run: --help, serve (answers initialize over stdio) and
 * demo --yes. Every dependency is inlined in dist/index.js and its chunks, so the tarball installs alone.
 * `npm test` builds first; the pack skips `prepack` so that it does not rebuild dist/ under
 * the tests running beside this one.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = path.resolve(import.meta.dirname, '../..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let tmp: string;
let bin: string;
let files: string[];

const offlineEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  npm_config_cache: path.join(tmp, 'cache'),
  npm_config_offline: 'true',
  npm_config_registry: 'http://127.0.0.1:9/',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
});

beforeAll(() => {
  if (!existsSync(path.join(REPO, 'dist/index.js'))) throw new Error('dist/index.js is missing: run npm run build (npm test does it)');
  tmp = mkdtempSync(path.join(os.tmpdir(), 'co-pack-'));
  const out = execFileSync(NPM, ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], { cwd: REPO, env: offlineEnv(), encoding: 'utf8' });
  const [info] = JSON.parse(out.slice(out.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  files = info!.files.map((f) => f.path);
  const prefix = path.join(tmp, 'prefix');
  execFileSync(NPM, ['install', '--prefix', prefix, path.join(tmp, info!.filename)], { cwd: tmp, env: offlineEnv(), encoding: 'utf8', stdio: 'pipe' });
  bin = path.join(prefix, 'node_modules/.bin/copilot-onboarding');
}, 180_000);
afterAll(() => tmp && rmSync(tmp, { recursive: true, force: true }));

describe('npm package', () => {
  it('package.json builds before packing and says where the project lives', () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as Record<string, unknown> & { scripts: Record<string, string> };
    expect(pkg.scripts.prepack).toMatch(/npm run build/);
    for (const k of ['repository', 'homepage', 'bugs', 'keywords', 'license']) expect(pkg[k], k).toBeTruthy();
    expect(pkg.dependencies ?? {}).toEqual({});
  });

  it('the tarball holds the bin, README, LICENSE, docs and the example, and no source map', () => {
    for (const f of ['dist/index.js', 'README.md', 'LICENSE', 'package.json', 'dist/THIRD-PARTY-LICENSES.txt', 'docs/clients.md', 'examples/orders-service/.github/copilot-instructions.md']) {
      expect(files, f).toContain(f);
    }
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    // Every chunk the build made ships, and nothing else of dist/.
    const chunks = readdirSync(path.join(REPO, 'dist/chunks')).map((f) => `dist/chunks/${f}`);
    expect(chunks.length).toBeGreaterThan(0);
    expect(files.filter((f) => f.startsWith('dist/')).sort()).toEqual(['dist/THIRD-PARTY-LICENSES.txt', 'dist/index.js', ...chunks].sort());
    expect(files.filter((f) => f.startsWith('dist/testing/') || f.startsWith('server/') || f.startsWith('test/'))).toEqual([]);
    expect(readFileSync(path.join(REPO, 'dist/index.js'), 'utf8')).not.toMatch(/sourceMappingURL/);
  });

  it('the installed bin prints its help and version', () => {
    const help = execFileSync(bin, ['--help'], { encoding: 'utf8' });
    expect(help).toMatch(/Usage: copilot-onboarding/);
    for (const c of ['serve', 'demo', 'status', 'traces', 'rollback']) expect(help).toContain(c);
    const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
    expect(execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()).toBe(pkg.version);
  });

  it('the installed bin serves: answers initialize over stdio with its version', async () => {
    const ws = mkdtempSync(path.join(tmp, 'ws-'));
    const child = spawn(bin, ['serve', '--workspace', ws], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    const first = new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('no initialize answer')), 30_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) {
          clearTimeout(t);
          resolve(out.slice(0, out.indexOf('\n')));
        }
      });
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pack', version: '0' } } })}\n`);
    const msg = JSON.parse(await first) as { id: number; result: { serverInfo: { name: string; version: string } } };
    child.stdin.end();
    await new Promise((r) => child.on('exit', r));
    const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
    expect(msg.id).toBe(1);
    expect(msg.result.serverInfo).toEqual({ name: 'copilot-onboarding', version: pkg.version });
  });

  it('the installed bin runs the demo on its bundled example', () => {
    const out = execFileSync(bin, ['demo', '--yes'], { cwd: tmp, encoding: 'utf8', env: { ...process.env }, timeout: 120_000 });
    expect(out).toMatch(/Byte-identical restore: yes/);
    expect(out).toMatch(/Trace chain after the whole flow: verifies/);
  }, 150_000);
});
