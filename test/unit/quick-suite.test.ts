/**
 * `npm run test:quick` leaves out the test files that start node child processes; this keeps its
 * list (vitest.quick.config.ts) in step with the tests: a file that starts node (the built bin,
 * the crash runner, an SDK stdio client, the CLI through execFile) is on the list, and every
 * listed file exists.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MOCKING, SPAWNING } from '../../vitest.quick.config.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const STARTS_NODE = /process\.execPath|crash-runner|StdioClientTransport|promisify\(execFile\)/;

describe('test:quick', () => {
  it('lists every test file that starts a node process, and only files that exist', () => {
    const files = readdirSync(path.join(REPO, 'test'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => `test/${f.split(path.sep).join('/')}`)
      .filter((f) => f !== 'test/unit/quick-suite.test.ts');
    const spawning = files.filter((f) => STARTS_NODE.test(readFileSync(path.join(REPO, f), 'utf8'))).sort();
    expect(spawning.length).toBeGreaterThan(5);
    expect(spawning.filter((f) => !SPAWNING.includes(f))).toEqual([]);
    for (const f of SPAWNING) expect(existsSync(path.join(REPO, f)), f).toBe(true);
  });

  it('lists every test file that mocks a module (the quick run shares a module cache), and only files that exist', () => {
    const files = readdirSync(path.join(REPO, 'test'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => `test/${f.split(path.sep).join('/')}`)
      .filter((f) => f !== 'test/unit/quick-suite.test.ts');
    const mocking = files.filter((f) => /\bvi\.(?:mock|doMock)\(/.test(readFileSync(path.join(REPO, f), 'utf8'))).sort();
    expect(mocking.filter((f) => !MOCKING.includes(f))).toEqual([]);
    for (const f of MOCKING) expect(existsSync(path.join(REPO, f)), f).toBe(true);
  });
});
