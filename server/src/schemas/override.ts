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

/** One source of truth (issue 21): the file's copies of AGENTS.md's rules are replaced by its import of AGENTS.md (core/agents/pointers.ts). */
const PointerOverrideSchema = z
  .object({
    file: z.enum(['CLAUDE.md', 'GEMINI.md']),
    pointer: z.literal('@AGENTS.md'),
  })
  .strict();
export type PointerOverride = z.infer<typeof PointerOverrideSchema>;
export const AnyOverrideSchema = z.union([OverrideSchema, PointerOverrideSchema]);
export type AnyOverride = z.infer<typeof AnyOverrideSchema>;
