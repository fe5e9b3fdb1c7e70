// Child process for the concurrent-append test: appends N elicitation traces to a workspace.
// Usage: node append-traces.mjs <distDir> <root> <count> <tag>
const [distDir, root, count, tag] = process.argv.slice(2);
const { TraceStore } = await import(`${distDir}/testing/crash.js`);
const store = new TraceStore(root, 'elicitation');
for (let i = 0; i < Number(count); i++) {
  await store.append(
    {
      format: 'copilot-onboarding/elicitation-trace@1',
      timestamp: new Date().toISOString(),
      action: 'question',
      channel: 'mcp',
      client: { name: tag, version: '1' },
      message: `q ${tag} ${i}`,
      schema: { type: 'object', properties: {}, required: [] },
      response: { action: 'decline' },
      outcome: 'declined',
      subject: { i },
      duration_ms: 1,
      error: null,
    },
    'question',
  );
}
