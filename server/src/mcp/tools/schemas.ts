/** Zod shapes shared by tool output schemas. */
import { z } from 'zod';

export const errorShape = z.object({ code: z.string(), message: z.string(), next: z.string().nullable() });

export const narrationShape = z.object({
  source: z.enum(['sampling', 'fallback']).describe('"sampling" when the client model narrated; "fallback" for the deterministic text'),
  text: z.string(),
  trace: z.string().nullable().describe('Sampling trace file, when a sampling call was made'),
});

export const recoveryShape = z
  .object({ status: z.string(), migrationId: z.string().nullable(), message: z.string() })
  .nullable()
  .describe('Set when an interrupted migration or rollback was found and recovered before this call');

export const truncatedShape = z
  .object({ counts: z.record(z.string(), z.number().int()), note: z.string() })
  .optional()
  .describe('Set when a list was cut to keep the result small: the full count of each cut list, and where the complete data is');
