/**
 * Copilot's `excludeAgent` end to end: an override asks for it on one section, the plan the
 * human approves carries it, and the migrated file has it in its front matter.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { YES_APPROVE, YES_MIGRATE, harnessesPerTest, textOf } from '../helpers/harness.js';
import { exampleWorkspace } from '../helpers/workspace.js';
import { readFrontMatter } from '../../server/src/core/copilot-format.js';

const harnesses = harnessesPerTest();

describe('excludeAgent override', () => {
  it('propose with the override → approve → migrate: the file has excludeAgent', async () => {
    const h = await harnesses.open({ root: exampleWorkspace(), caps: { elicitation: {} }, elicit: [YES_APPROVE, YES_MIGRATE] });
    const p = await h.call('onboarding_propose', { narrate: false, overrides: [{ section: 'CI', excludeAgent: 'code-review' }] });
    expect(p.isError, textOf(p)).toBeFalsy();
    const sections = (p.structuredContent as { sections: Array<{ title: string; destination: string; evidence: string[] }> }).sections;
    const ci = sections.find((s) => s.title === 'CI')!;
    expect(ci.evidence).toContain('override: excludeAgent "code-review"');

    const a = await h.call('onboarding_approve', {});
    expect(a.isError, textOf(a)).toBeFalsy();
    const m = await h.call('onboarding_migrate', {});
    expect(m.isError, textOf(m)).toBeFalsy();

    const written = await fsp.readFile(path.join(h.root, ci.destination), 'utf8');
    expect(readFrontMatter(written)).toMatchObject({ applyTo: '.github/workflows/**', excludeAgent: 'code-review', errors: [] });
    expect(written).toMatch(/^---\napplyTo: "[^"]+"\ndescription: "[^"]*"\nexcludeAgent: "code-review"\n---\n/);
  });
});
