/**
 * The per-user trace key (io/user-key.ts): made on first use with mode 0600 in the folder the
 * environment names, the same key afterwards, and refused (never replaced) when it is open to
 * other users or corrupted.
 */
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadUserKey, userKeyPath } from '../../server/src/io/user-key.js';
import { tempDirsPerTest } from '../helpers/files.js';

const temp = tempDirsPerTest('co-key-');
function configDir(): NodeJS.ProcessEnv {
  return { COPILOT_ONBOARDING_CONFIG_DIR: path.join(temp(), 'cfg') };
}

describe('per-user trace key', () => {
  it('lives in $COPILOT_ONBOARDING_CONFIG_DIR, else $XDG_CONFIG_HOME/copilot-onboarding, else ~/.config/copilot-onboarding', () => {
    expect(userKeyPath({ COPILOT_ONBOARDING_CONFIG_DIR: '/x/y' })).toBe('/x/y/trace-key');
    expect(userKeyPath({ XDG_CONFIG_HOME: '/cfg' })).toBe('/cfg/copilot-onboarding/trace-key');
    expect(userKeyPath({})).toBe(path.join(os.homedir(), '.config/copilot-onboarding/trace-key'));
  });

  it('is absent until created, then 64 hex digits with mode 0600, and the same key afterwards', async () => {
    const env = configDir();
    expect(await loadUserKey({ env })).toBeNull();
    const key = (await loadUserKey({ env, create: true }))!;
    const file = userKeyPath(env);
    expect(key.file).toBe(file);
    expect(readFileSync(file, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    if (process.platform !== 'win32') {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    }
    const again = (await loadUserKey({ env, create: true }))!;
    expect(again.mac('x')).toBe(key.mac('x'));
  });

  it.skipIf(process.platform === 'win32')('a key other users can read is refused, not replaced', async () => {
    const env = configDir();
    await loadUserKey({ env, create: true });
    const file = userKeyPath(env);
    const before = readFileSync(file, 'utf8');
    chmodSync(file, 0o644);
    await expect(loadUserKey({ env, create: true })).rejects.toMatchObject({ code: 'TRACE_KEY_INVALID', message: expect.stringMatching(/mode 0644/) });
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('a corrupted key is refused, not replaced', async () => {
    const env = configDir();
    await loadUserKey({ env, create: true });
    const file = userKeyPath(env);
    writeFileSync(file, 'not a key\n', { mode: 0o600 });
    await expect(loadUserKey({ env, create: true })).rejects.toMatchObject({ code: 'TRACE_KEY_INVALID', message: expect.stringMatching(/not 64 hex digits/) });
    expect(readFileSync(file, 'utf8')).toBe('not a key\n');
  });
});
