/**
 * The package as a user gets it today, by each install path the README documents, offline:
 *
 * - the tarball: `npm pack` of the built tree, installed into a temporary prefix with no network
 *   (an empty npm cache, `--offline`, and an unreachable registry), then the installed bin run:
 *   --help, --version, serve (answers initialize over stdio) and demo --yes. Every dependency is
 *   inlined in dist/index.js and its chunks, so the tarball installs alone. `npm test` builds first; the pack
 *   skips `prepack` so that it does not rebuild dist/ under the tests running beside this one.
 * - a git URL: `npm install git+file://<bare clone>#<commit>` of this repository's HEAD, which
 *   builds on install (the `prepare` script, after npm installs the devDependencies in its own
 *   clone). Offline with an unreachable registry, so those come from the npm cache that
 *   `npm ci` filled. It tests the committed tree, not uncommitted edits.
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


const version = (): string => (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

/** `bin serve` on a fresh workspace answers initialize with its name and version. */
async function expectServes(binPath: string): Promise<void> {
  const ws = mkdtempSync(path.join(tmp, 'ws-'));
  const child = spawn(binPath, ['serve', '--workspace', ws], { stdio: ['pipe', 'pipe', 'pipe'] });
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
  expect(msg.id).toBe(1);
  expect(msg.result.serverInfo).toEqual({ name: 'copilot-onboarding', version: version() });
}

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
    // Nothing that cannot run from the tarball: scripts needing the repository's sources or devDependencies stay out.
    expect(files).not.toContain('examples/make-state-example.mjs');
    const code = files.filter((f) => /\.(m?js|cjs|ts)$/.test(f) && !f.startsWith('examples/orders-service/'));
    expect(code.every((f) => f === 'dist/index.js' || f.startsWith('dist/chunks/')), `only the bundled bin and its chunks (the example repository is data): ${code.join(', ')}`).toBe(true);
    expect(files.filter((f) => f.startsWith('dist/testing/') || f.startsWith('server/') || f.startsWith('test/'))).toEqual([]);
    expect(readFileSync(path.join(REPO, 'dist/index.js'), 'utf8')).not.toMatch(/sourceMappingURL/);
  });

  it('the installed bin prints its help and version', () => {
    const help = execFileSync(bin, ['--help'], { encoding: 'utf8' });
    expect(help).toMatch(/Usage: copilot-onboarding/);
    // Exit codes as they are: only propose exits 10 (analyze never does).
    expect(help).toMatch(/10 a migration is proposed \(propose only; analyze exits 0 or an error code\)/);
    expect(help).not.toMatch(/analyze\/propose/);
    for (const c of ['serve', 'demo', 'status', 'traces', 'rollback']) expect(help).toContain(c);
    const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
    expect(execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()).toBe(pkg.version);
  });

  it('the installed bin serves: answers initialize over stdio with its version', async () => {
    await expectServes(bin);
  });

  it('the installed bin runs the demo on its bundled example', () => {
    const out = execFileSync(bin, ['demo', '--yes'], { cwd: tmp, encoding: 'utf8', env: { ...process.env }, timeout: 120_000 });
    expect(out).toMatch(/Byte-identical restore: yes/);
    expect(out).toMatch(/Trace chain after the whole flow: verifies/);
  }, 150_000);
});

describe('install from a git URL (build on install)', () => {
  let gitBin: string;
  beforeAll(() => {
    const bare = path.join(tmp, 'copilot-onboarding.git');
    execFileSync('git', ['clone', '--quiet', '--bare', REPO, bare], { stdio: 'pipe' });
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
    const prefix = path.join(tmp, 'git-prefix');
    // The devDependencies the build needs come from the npm cache (`npm ci` filled it, keyed by the
    // default registry's URLs); `--offline` keeps npm off the network.
    const { npm_config_cache: _emptyCache, npm_config_registry: _unreachable, ...env } = offlineEnv();
    execFileSync(NPM, ['install', '--prefix', prefix, `git+file://${bare}#${head}`], { cwd: tmp, env, encoding: 'utf8', stdio: 'pipe', timeout: 540_000 });
    gitBin = path.join(prefix, 'node_modules/.bin/copilot-onboarding');
  }, 600_000);

  it('the bin built on install prints its version and serves initialize', async () => {
    expect(execFileSync(gitBin, ['--version'], { encoding: 'utf8' }).trim()).toBe(version());
    await expectServes(gitBin);
    // Built by the prepare script from the sources of that commit, not copied from this checkout.
    expect(existsSync(path.join(path.dirname(gitBin), '../copilot-onboarding/dist/index.js'))).toBe(true);
    expect(existsSync(path.join(path.dirname(gitBin), '../copilot-onboarding/server'))).toBe(false);
  }, 60_000);
});
