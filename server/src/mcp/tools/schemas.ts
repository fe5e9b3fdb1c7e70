/** Zod shapes shared by tool output schemas, each built when called (mcp/tools/lazy-schemas.ts: on first use, not at start). */
import { z } from 'zod';

export const errorShape = () => z.object({ code: z.string(), message: z.string(), next: z.string().nullable() });

export const narrationShape = () =>
  z.object({
    source: z.enum(['sampling', 'fallback']).describe('"sampling" when the client model narrated; "fallback" for the deterministic text'),
    text: z.string(),
    trace: z.string().nullable().describe('Sampling trace file, when a sampling call was made'),
  });

export { problemShape } from '../../schemas/problem.js';

export const recoveryShape = () =>
  z
    .object({ status: z.string(), migrationId: z.string().nullable(), message: z.string() })
    .nullable()
    .describe('Set when an interrupted migration or rollback was found and recovered before this call');

export const truncatedShape = () =>
  z
    .object({ counts: z.record(z.string(), z.number().int()), note: z.string() })
    .optional()
    .describe('Set when a list was cut to keep the result small: the full count of each cut list, and where the complete data is');

export const loadsShape = () => {
  const statsShape = z.object({ files: z.number().int(), mean: z.number(), median: z.number(), p90: z.number(), max: z.number() });
  return z
    .object({
      line: z.string().describe('The figure in one sentence, as the approve form shows it'),
      files: z.number().int().describe('Files of the tree measured (vendored and generated folders left out)'),
      headline: z.string().describe('The surface of the one-line figure'),
      alwaysOn: z.object({ before: z.number().int(), after: z.number().int() }).describe('Characters of the repository-wide file, attached to every request'),
      surfaces: z.array(
        z.object({
          surface: z.enum(['code-review', 'cloud-agent', 'vscode-chat']),
          name: z.string(),
          before: statsShape,
          after: statsShape,
          folders: z.array(z.object({ folder: z.string().describe('Top-level folder, "." for root files'), before: statsShape, after: statsShape })),
          duplicated: z
            .object({ before: statsShape, after: statsShape })
            .nullable()
            .describe('Of those characters per file, the ones that are an extra copy of a rule this surface attaches twice (the same rule in two instruction files attached together)'),
        }),
      ),
      budget: z.object({
        chars: z.number().int().nullable().describe('budgetChars, when given'),
        warnings: z.array(z.object({ code: z.enum(['REPO_WIDE_TOO_LONG', 'OVER_BUDGET']), message: z.string() })),
      }),
    })
    .nullable()
    .describe('What loads where: instruction characters Copilot attaches per file of the tree, before and after the plan (docs/loads.md)');
};

export const alternativesShape = () =>
  z
    .array(z.object({ section: z.string(), title: z.string(), chars: z.number().int(), applyTo: z.string(), candidates: z.array(z.string()) }))
    .describe('Large sections written to a path-specific file whose heading or language gives another scope: their scope now (applyTo) and the others, for the human to choose');

export const leftoverShape = () =>
  z
    .object({
      chars: z.number().int().describe('Characters left in the repository-wide file after the plan'),
      suggestions: z.array(z.object({ section: z.string(), title: z.string(), chars: z.number().int(), candidates: z.array(z.string()) })),
    })
    .nullable()
    .describe('The repository-wide file after the plan, and candidate scopes for its largest sections');
