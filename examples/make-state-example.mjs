#!/usr/bin/env node
// Produces .copilot-state.example/ from a real run (not by hand): the built server over stdio,
// driven by SDK clients through the bundled example repository. The run shows every outcome the
// flow can produce: answered, declined, cancelled, timeout, unsupported, approved; sampling traces
// narrated (a scripted responder, labelled as such) and unsupported.
// Usage: npm run build && node examples/make-state-example.mjs [outDir]
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.resolve(process.argv[2] ?? path.join(repo, '.copilot-state.example'));
const ws = mkdtempSync(path.join(os.tmpdir(), 'co-example-state-'));
// The traces are authenticated with a per-user key: a throwaway one here, never the maintainer's
// own (so on every machine the example's records are "written with another key": chain-checked only).
const keyDir = mkdtempSync(path.join(os.tmpdir(), 'co-example-key-'));
cpSync(path.join(repo, 'examples/orders-service'), ws, { recursive: true });

async function session({ name, caps, answers, samples = [], env = {} }) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(repo, 'dist/index.js'), 'serve', '--workspace', ws],
    env: { ...process.env, COPILOT_ONBOARDING_CONFIG_DIR: keyDir, ...env },
    stderr: 'ignore',
  });
  const client = new Client({ name, version: '1.0.0' }, { capabilities: caps });
  if (caps.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async () => {
      const next = answers.shift();
      if (next === 'hang') return new Promise(() => {});
      if (!next) throw new Error('no scripted answer left');
      return next;
    });
  }
  if (caps.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async () => samples.shift());
  }
  await client.connect(transport);
  const call = async (tool, args = {}) => {
    const r = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 60_000 });
    process.stdout.write(`${name}: ${tool} -> ${r.isError ? 'refused' : 'ok'}\n`);
    return r;
  };
  return { call, close: () => client.close() };
}

try {
  const canned = (text) => ({ role: 'assistant', model: 'example-script (canned text, not a model)', stopReason: 'endTurn', content: { type: 'text', text } });
  const a = await session({
    name: 'example-client',
    caps: { elicitation: {}, sampling: {} },
    answers: [
      { action: 'accept', content: { answer: 'Yes: the Docker rules apply only to files under infra/.' } },
      { action: 'decline' },
      { action: 'cancel' },
      { action: 'accept', content: { approved: false } },
      { action: 'accept', content: { approved: true, comment: 'Looks right.' } },
      { action: 'accept', content: { confirmed: true, understood_risks: true } },
      { action: 'accept', content: { confirmed: true, reason: 'Showing rollback in the example.' } },
    ],
    samples: [
      canned('The repository has one structured instruction file with eight sections; nothing has been changed.'),
      canned('The plan moves the language-, test-, UI-, script-, CI- and Docker-specific sections into path-specific files and keeps the rest repository-wide.'),
    ],
  });
  await a.call('question_ask', { question: 'Should the Docker section apply only to files under infra/?' });
  await a.call('question_ask', { question: 'Should the Communication section stay repository-wide?' });
  await a.call('onboarding_analyze');
  await a.call('onboarding_propose');
  await a.call('onboarding_approve'); // cancelled
  await a.call('onboarding_approve'); // declined (box unticked)
  await a.call('onboarding_approve'); // approved
  await a.call('onboarding_migrate');
  await a.call('onboarding_rollback');
  await a.close();

  const b = await session({ name: 'no-elicitation-client', caps: {}, answers: [] });
  await b.call('onboarding_propose'); // sampling unsupported
  await b.call('onboarding_approve'); // unsupported
  await b.close();

  const c = await session({ name: 'slow-client', caps: { elicitation: {} }, answers: ['hang'], env: { COPILOT_ONBOARDING_APPROVAL_TIMEOUT_MS: '300' } });
  await c.call('onboarding_approve'); // timeout
  await c.close();

  rmSync(out, { recursive: true, force: true });
  cpSync(path.join(ws, '.copilot-state'), out, { recursive: true });
  rmSync(path.join(out, 'elicitation-traces', '.lock'), { force: true });
  rmSync(path.join(out, 'sampling-traces', '.lock'), { force: true });
  process.stdout.write(`wrote ${path.relative(process.cwd(), out) || out}\n`);
} finally {
  rmSync(ws, { recursive: true, force: true });
  rmSync(keyDir, { recursive: true, force: true });
}
