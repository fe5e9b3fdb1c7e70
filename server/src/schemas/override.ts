/**
 * A human's change to one section of a plan (onboarding_propose `overrides`, `propose --override`),
 * stored in the plan (schemas/plan.ts). Its own module, so that the server can describe
 * onboarding_propose's input without building the whole plan schema.
 */
import { z } from 'zod';

/** The agents a path-specific instruction file can exclude (Copilot's `excludeAgent` front matter key). */
const EXCLUDE_AGENTS = ['code-review', 'coding-agent'] as const;
export type ExcludeAgent = (typeof EXCLUDE_AGENTS)[number];

export const OverrideSchema = z
  .object({
    /** Section id (`s03-typescript`) or its exact heading text. */
    section: z.string().min(1),
    /** Keep the section in the repository-wide file. */
    keepRepoWide: z.boolean().optional(),
    /** Globs, as one comma-separated string or a list. */
    applyTo: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    /** Output slug or `.github/instructions/<slug>.instructions.md`. Sections with the same destination are merged in source order. */
    destination: z.string().min(1).optional(),
    /** Copilot agent that must not read the section's path-specific file (its front matter `excludeAgent`). */
    excludeAgent: z.enum(EXCLUDE_AGENTS).optional(),
  })
  .strict();
export type Override = z.infer<typeof OverrideSchema>;

/**
 * One source of truth (issue 21), per file: the file's byte-for-byte copies of the target's rules
 * are replaced by its import of the target (core/agents/pointers.ts). `@AGENTS.md`: AGENTS.md holds
 * the shared rules; `@.github/copilot-instructions.md`: Copilot's repository-wide file does.
 */
export const PointerOverrideSchema = z
  .object({
    file: z.enum(['CLAUDE.md', 'GEMINI.md']),
    pointer: z.enum(['@AGENTS.md', '@.github/copilot-instructions.md']),
  })
  .strict();
export type PointerOverride = z.infer<typeof PointerOverrideSchema>;

/**
 * One source of truth for the whole workspace, the person's answer to the shared-rules question
 * (core/agents/shared-rules.ts): `AGENTS.md` or `copilot` hold the rules shared with the other
 * agents (CLAUDE.md and GEMINI.md then import that file instead of repeating them), or `keep`:
 * every copy stays as it is.
 */
export const SharedRulesOverrideSchema = z.object({ sharedRules: z.enum(['AGENTS.md', 'copilot', 'keep']) }).strict();
export type SharedRulesChoice = z.infer<typeof SharedRulesOverrideSchema>['sharedRules'];

export const AnyOverrideSchema = z.union([OverrideSchema, PointerOverrideSchema, SharedRulesOverrideSchema]);
export type AnyOverride = z.infer<typeof AnyOverrideSchema>;
