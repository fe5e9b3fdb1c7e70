/**
 * The gate reads the approval it relies on once more (io/traces recheckTrace), whatever the
 * checkpoint said: the record must be the one the verified walk saw and must authenticate with
 * this user's key. Through the tools a record that fails only the key check never gets this far
 * (the walk marks it unauthenticated and findApproval refuses it), so the key check is tested
 * here on its own (scripts/mutation-check.mjs removes it and expects this file to fail).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { recheckTrace } from '../../server/src/io/traces.js';
import { loadUserKey, type UserKey } from '../../server/src/io/user-key.js';
import { exampleWorkspace } from '../helpers/workspace.js';
import { appendCliGateTrace } from '../helpers/traces.js';

describe('recheckTrace: the approval read again', () => {
  it("holds with this user's key, and does not with another key, though the record is unchanged", async () => {
    const root = exampleWorkspace();
    const { file, sha256 } = await appendCliGateTrace(root, { response: { approved: true }, outcome: 'approved' });
    const key = (await loadUserKey({ create: true }))!;
    expect(await recheckTrace(root, 'elicitation', file, sha256, key)).toBeNull();
    const secret = randomBytes(32);
    const other: UserKey = { file: 'another user', mac: (text) => createHmac('sha256', secret).update(text).digest('hex') };
    expect(await recheckTrace(root, 'elicitation', file, sha256, other)).toBe(`${file}: does not authenticate with this user's trace key`);
  });
});
