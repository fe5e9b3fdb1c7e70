/**
 * `copilot-onboarding propose [--override JSON]…`: the plan of onboarding_propose for a terminal
 * or CI, made by the same engine and stored the same way (the plan file in .copilot-state/plans/
 * and the onboarding.json update). It changes no instruction file and has no way to approve:
 * approval stays a human answer to an MCP elicitation form. Like every tool, it first finishes
 * or undoes a migration or rollback that was interrupted.
 */
import type { Command } from 'commander';
import { propose } from '../app/propose.js';
import { recover } from '../app/recover.js';
import { fallbackNarration, planFacts, planText, proposeResult } from '../app/facts.js';
import { planViewData } from '../app/plan-view.js';
import { figureFor } from '../app/loads.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import type { AnyOverride } from '../schemas/override.js';
import type { CliIo } from './common.js';
import { addSurveyOptions, survey, SurveyExit, type SurveyOptions } from './analyze.js';

/** Each --override is one JSON object or an array of them, each one of the override forms of onboarding_propose; the plan builder checks them against the workspace. */
export function parseOverrides(values: string[]): AnyOverride[] {
  return values.flatMap((v) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch {
      throw new OnboardingError(ErrorCode.INVALID_INPUT, `--override ${JSON.stringify(v.slice(0, 200))} is not JSON.`, {
        next: `Give a JSON object such as '{"section":"s03-testing","applyTo":"**/*.test.ts"}' (or an array of them).`,
      });
    }
    // Each is checked where the tool's overrides are: a section override by the plan builder, the
    // others by resolveSharedRules (core/agents/shared-rules.ts), before anything is written.
    return (Array.isArray(parsed) ? parsed : [parsed]) as AnyOverride[];
  });
}

/** --budget-chars: a positive whole number of characters. */
export function parseBudget(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || n <= 0) {
    throw new OnboardingError(ErrorCode.INVALID_INPUT, `--budget-chars ${JSON.stringify(v.slice(0, 40))} is not a positive whole number.`, { next: 'Give the characters per file, e.g. --budget-chars 8000.' });
  }
  return n;
}

export function registerProposeCommand(program: Command, io: CliIo): void {
  addSurveyOptions(
    program
      .command('propose')
      .description('Build and store the migration plan, as onboarding_propose does; changes no instruction file and never approves. Exit 10 when a migration is proposed.')
      .option('--budget-chars <n>', 'instruction characters Copilot may attach per file; warn when the plan leaves more (no limit by default)', parseBudget)
      .option('--override <json>', 'an override as JSON, as onboarding_propose takes: {section, keepRepoWide?, applyTo?, destination?, excludeAgent?}, {file, pointer} or {sharedRules}; repeat for several', (v: string, prev: string[]) => [...prev, v], [] as string[]),
  ).action(async (o: SurveyOptions & { override: string[]; budgetChars?: number }) => {
    const overrides = parseOverrides(o.override);
    await survey('propose', o, io, async (root) => {
      const recovery = await recover(root, 'cli');
      const { plan, planFile, snapshot, analysis, sharedRules } = await propose(root, overrides.length ? overrides : undefined);
      const facts = planFacts(plan, planFile, figureFor(snapshot, plan), o.budgetChars, { sharedRules, duplicates: analysis.agents?.duplicates ?? [] });
      const proposed = plan.operations.length > 0;
      return {
        exitCode: proposed ? SurveyExit.PROPOSED : SurveyExit.NOTHING_TO_DO,
        data: { ...proposeResult(facts, fallbackNarration(planText(facts)), recovery), planView: planViewData(plan, snapshot) },
        text: [
          recovery ? `Recovery: ${recovery.message}\n` : '',
          planText(facts, proposed ? 'approve it from an MCP client (onboarding_approve asks the human); the CLI never approves.' : 'nothing to approve.'),
        ].join(''),
        summary: proposed ? `migration proposed (${plan.operations.length} operation(s), plan ${plan.planId})` : `nothing to migrate (pattern ${plan.pattern})`,
      };
    });
  });
}
