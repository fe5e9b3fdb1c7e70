/**
 * `copilot-onboarding schemas [--out DIR] [--check]`: the JSON Schemas of every persisted
 * artifact, generated from the zod schemas the code itself validates with (zod 4
 * `z.toJSONSchema`), so docs/schemas/ cannot drift from the implementation. CI checks that the
 * committed files are current (test/unit/schemas-doc.test.ts).
 */
import path from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { syncTextFiles, type TextFileStatus } from '../io/files.js';
import { ManifestSchema } from '../schemas/manifest.js';
import { PlanSchema } from '../schemas/plan.js';
import { QuestionEntrySchema } from '../schemas/question.js';
import { OnboardingStateSchema, TraceCheckpointSchema } from '../schemas/state.js';
import { ElicitationTraceSchema, SamplingTraceSchema } from '../schemas/trace.js';
import { CliExit, ExitCode, resolveWorkspace, writeJson, type CliIo } from './common.js';

interface SchemaDoc {
  file: string;
  schema: z.ZodType;
  title: string;
  description: string;
}

const SCHEMA_DOCS: readonly SchemaDoc[] = [
  {
    file: 'elicitation-trace.schema.json',
    schema: ElicitationTraceSchema,
    title: 'copilot-onboarding elicitation trace',
    description:
      'One file per elicitation in .copilot-state/elicitation-traces/. sha256 = sha256(canonical JSON without sha256); prev_sha256 = sha256 of the previous whole record; from format @3, mac = HMAC-SHA-256 with the per-user trace key (~/.config/copilot-onboarding/trace-key) over the canonical JSON without sha256 and mac.',
  },
  {
    file: 'sampling-trace.schema.json',
    schema: SamplingTraceSchema,
    title: 'copilot-onboarding sampling trace',
    description: 'One file per sampling (narration) call in .copilot-state/sampling-traces/, hash-chained and (from format @3) authenticated like the elicitation traces.',
  },
  {
    file: 'question.schema.json',
    schema: QuestionEntrySchema,
    title: 'copilot-onboarding question entry',
    description: 'The YAML document of .copilot-state/questions/<YYYYMMDD_HHMMSS>_<id>_question.yaml (validated as data after YAML parsing).',
  },
  {
    file: 'plan.schema.json',
    schema: PlanSchema,
    title: 'copilot-onboarding migration plan',
    description: '.copilot-state/plans/<planId>.json: canonical JSON; sha256 = sha256(canonical JSON of the plan without planId, sha256 and the content of each operation, which the sha256 of that operation binds), planId = its first 16 hex characters.',
  },
  {
    file: 'backup-manifest.schema.json',
    schema: ManifestSchema,
    title: 'copilot-onboarding backup manifest',
    description: '.copilot-state/backups/<migrationId>.manifest.json: what the tar.gz backup holds and what the migration created.',
  },
  {
    file: 'onboarding-state.schema.json',
    schema: OnboardingStateSchema,
    title: 'copilot-onboarding workspace state',
    description: '.copilot-state/onboarding.json: the state machine record (versioned).',
  },
  {
    file: 'trace-checkpoint.schema.json',
    schema: TraceCheckpointSchema,
    title: 'copilot-onboarding trace checkpoint',
    description:
      '.copilot-state/trace-checkpoint.json: where the last verified walk of the elicitation chain ended and the approve / confirmed-migrate facts up to there, so gates read only later traces. mac = HMAC-SHA-256 with the per-user trace key over the canonical JSON without mac; one that does not authenticate is ignored.',
  },
];

/** Every schema file name -> its exact text. */
export function generateSchemas(): Map<string, string> {
  const out = new Map<string, string>();
  for (const d of SCHEMA_DOCS) {
    const { $schema, ...rest } = z.toJSONSchema(d.schema) as Record<string, unknown>;
    const doc = { $schema, title: d.title, description: d.description, ...rest };
    out.set(d.file, JSON.stringify(doc, null, 2) + '\n');
  }
  return out;
}

/** Compare (and with `write`, update) the files in `dir`. */
export function syncSchemas(dir: string, write: boolean): Promise<Array<{ file: string; status: TextFileStatus }>> {
  return syncTextFiles(dir, generateSchemas(), write);
}

export function registerSchemasCommand(program: Command, io: CliIo): void {
  program
    .command('schemas')
    .description('Write the JSON Schemas of traces, questions, plans, manifests and state (generated from the zod schemas).')
    .option('--out <dir>', 'output folder', 'docs/schemas')
    .option('--check', 'write nothing; exit 3 if any file is missing or differs')
    .option('--json', 'print a JSON envelope {ok, command, data}')
    .action(async (o: { out: string; check?: boolean; json?: boolean }) => {
      const dir = resolveWorkspace(o.out, { cwd: io.cwd, env: {} });
      const files = await syncSchemas(dir, !o.check);
      const ok = files.every((f) => f.status === 'unchanged' || f.status === 'written');
      if (o.json) {
        writeJson(io.stdout, { ok, command: 'schemas', data: { out: dir, files }, ...(ok ? {} : { exitCode: ExitCode.VERIFY_FAILED }) });
      } else {
        io.stdout.write(files.map((f) => `${f.status.padEnd(9)} ${path.join(o.out, f.file)}`).join('\n') + '\n');
        if (!ok) io.stderr.write('JSON Schemas are out of date: run `npm run schemas` (copilot-onboarding schemas) and commit docs/schemas/.\n');
      }
      if (!ok) throw new CliExit(ExitCode.VERIFY_FAILED, 'schemas out of date');
    });
}
