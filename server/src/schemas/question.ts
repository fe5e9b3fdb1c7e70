import { z } from 'zod';

/** One file per answered question: `.copilot-state/questions/<YYYYMMDD_HHMMSS>_<id>_question.yaml`. */
export const QuestionEntrySchema = z.object({
  timestamp: z.string(),
  question: z.string(),
  answer: z.string(),
  /** Workspace-state-relative path of the elicitation trace that recorded the answer. */
  trace: z.string(),
});
export type QuestionEntry = z.infer<typeof QuestionEntrySchema>;
