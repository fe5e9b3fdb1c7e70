import { z } from 'zod';

/** A problem found in a source (analyze, propose): declared once, built when called so tool schemas stay lazy. */
export const problemShape = () =>
  z.object({
    code: z.string(),
    severity: z.enum(['info', 'warning', 'error']),
    message: z.string(),
    path: z.string(),
    lines: z.array(z.number().int()),
  });
