#!/usr/bin/env node
// First import: route console output away from stdout (JSON-RPC) before anything else loads.
import './stdio-guard.js';
import { runCli } from './cli/program.js';

const code = await runCli({
  argv: process.argv,
  cwd: process.cwd(),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  isTTY: Boolean(process.stdin.isTTY && process.stdout.isTTY),
});
if (code !== 0) process.exitCode = code;
