/**
 * The gate reads the approval it relies on once more (io/traces recheckTrace), whatever the
 * checkpoint said: the record must be the one the verified walk saw and must authenticate with
 * this user's key. Through the tools a record that fails only the key check never gets this far
 * (the walk marks it unauthenticated and findApproval refuses it), so the key check is tested
 * here on its own (scripts/mutation-check.mjs removes it and expects this file to fail).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TraceStore, recheckTrace } from '../../server/src/io/traces.js';
import { loadUserKey, type UserKey } from '../../server/src/io/user-key.js';
import { appendGateTrace, gateTraceRecord } from '../../server/src/app/gate-trace.js';
import { traceDir } from '../../server/src/io/layout.js';
import { exampleWorkspace } from '../helpers/workspace.js';

async function oneTrace() {
  const root = exampleWorkspace();
  const now = Date.now();
  const unsealed = gateTraceRecord({
    channel: 'cli',
    action: 'approve',
    client: { name: 'test', version: '1' },
    message: 'Approve?',
    schema: {},
    response: { approved: true },
    outcome: 'approved',
    subject: {},
    error: null,
    startedMs: now,
    endedMs: now + 500,
  });
  const ref = await appendGateTrace(new TraceStore(root, 'elicitation'), unsealed);
  const rec = JSON.parse(readFileSync(path.join(traceDir(root, 'elicitation'), ref.file), 'utf8')) as { sha256: string };
  return { root, file: ref.file, sha256: rec.sha256 };
}

describe('recheckTrace: the approval read again', () => {
  it("holds with this user's key, and does not with another key, though the record is unchanged", async () => {
    const { root, file, sha256 } = await oneTrace();
    const key = (await loadUserKey({ create: true }))!;
    expect(await recheckTrace(root, 'elicitation', file, sha256, key)).toBeNull();
    const secret = randomBytes(32);
    const other: UserKey = { file: 'another user', mac: (text) => createHmac('sha256', secret).update(text).digest('hex') };
    expect(await recheckTrace(root, 'elicitation', file, sha256, other)).toBe(`${file}: does not authenticate with this user's trace key`);
  });
});
