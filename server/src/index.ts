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
  // Read only by the commands that ask in the terminal (demo, rollback): making process.stdin
  // costs every other command a few milliseconds of start.
  get stdin() {
    return process.stdin;
  },
  get isTTY() {
    return Boolean(process.stdin.isTTY && process.stdout.isTTY);
  },
});
if (code !== 0) process.exitCode = code;
