/**
 * The per-user trace key: 32 random bytes (64 hex digits) in the user's configuration folder,
 * outside every workspace: `$COPILOT_ONBOARDING_CONFIG_DIR` (tests), else
 * `$XDG_CONFIG_HOME/copilot-onboarding`, else `~/.config/copilot-onboarding`, file `trace-key`.
 * Created on first use with mode 0600 (folder 0700), complete or absent (io/durable.ts
 * createExclusive). Every trace record the store writes carries `mac` = HMAC-SHA-256 with this
 * key (io/traces.ts), and the trace checkpoint is authenticated with it (io/state.ts).
 *
 * Security: an agent that can edit only workspace files cannot read this key, so it cannot write
 * a record that authenticates (an approval above all). A process of the same user can read it:
 * see docs/security.md.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { createExclusive } from './durable.js';
import { readRegularFile, unlessMissing } from './workspace.js';

const KEY_FILE_NAME = 'trace-key';
const KEY_RE = /^[0-9a-f]{64}$/;

/** The key, with the path it was read from. */
export interface UserKey {
  readonly file: string;
  /** HMAC-SHA-256 (hex) of a string with this key. */
  mac(text: string): string;
}

/** Where the key lives for this process (read from the environment on every call). */
export function userKeyPath(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.COPILOT_ONBOARDING_CONFIG_DIR?.trim()
    ? path.resolve(env.COPILOT_ONBOARDING_CONFIG_DIR)
    : path.join(env.XDG_CONFIG_HOME?.trim() && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(os.homedir(), '.config'), 'copilot-onboarding');
  return path.join(dir, KEY_FILE_NAME);
}

function keyError(file: string, why: string, next: string): OnboardingError {
  return new OnboardingError(ErrorCode.TRACE_KEY_INVALID, `The per-user trace key ${file} ${why}.`, { next });
}

function makeKey(file: string, hex: string): UserKey {
  const secret = Buffer.from(hex, 'hex');
  return { file, mac: (text: string) => createHmac('sha256', secret).update(text).digest('hex') };
}

/**
 * The user's key, or null when it does not exist and `create` is false (a verify on an
 * auditor's machine). A key that is not 64 hex digits, not a regular file, or readable or
 * writable by other users is TRACE_KEY_INVALID: never replaced, never used.
 */
export async function loadUserKey(opts: { create?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<UserKey | null> {
  const file = userKeyPath(opts.env);
  for (let attempt = 0; attempt < 2; attempt++) {
    const data = await unlessMissing(() => readRegularFile(file, { maxBytes: 1024, followSymlinks: true }));
    if (data !== null) {
      if (!Buffer.isBuffer(data)) throw keyError(file, 'is not a regular file', 'Move it aside; a new key is made on the next gate call (approvals given before must then be given again).');
      if (process.platform !== 'win32') {
        const mode = (await fsp.stat(file)).mode & 0o777;
        if (mode & 0o077) {
          throw keyError(file, `has mode ${mode.toString(8).padStart(4, '0')}: other users can read or change it`, `Run \`chmod 600 ${file}\` (and check who could have read it).`);
        }
      }
      const hex = data.toString('utf8').trim();
      if (!KEY_RE.test(hex)) throw keyError(file, 'is corrupted: it is not 64 hex digits', 'Restore it from a copy, or move it aside (approvals given before must then be given again).');
      return makeKey(file, hex);
    }
    if (!opts.create) return null;
    await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    // Complete or absent: a process killed half-way leaves no empty key; two processes racing agree on one.
    await createExclusive(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  }
  throw keyError(file, 'keeps disappearing while it is read', 'Check what removes it.');
}
