/**
 * Imported first by the bin: in serve mode stdout carries JSON-RPC only, so console output
 * from this code or any dependency goes to stderr. CLI commands that print
 * for people write to process.stdout explicitly.
 */
const toStderr = (...args: unknown[]): void => {
  process.stderr.write(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ') + '\n');
};
console.log = toStderr;
console.info = toStderr;
console.debug = toStderr;
console.warn = toStderr;
export {};
