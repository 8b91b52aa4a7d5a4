// Starts `lorekeeper serve --http --port 0` for the HTTP end-to-end suites and learns its URL from the line
// "lorekeeper: listening on http://127.0.0.1:PORT/mcp" that the server prints on stderr.
import { spawn } from 'node:child_process';
import { serverEnv } from './harness.mjs';

/**
 * @param {string} bin the lorekeeper binary
 * @param {string} db the store
 * @param {{args?: string[], env?: object}} [opts] extra serve flags and environment
 * @returns {Promise<{url: string, proc: import('node:child_process').ChildProcess, stderr: () => string,
 *   stop: (signal?: string) => Promise<{code: number|null, signal: string|null}>}>}
 */
export async function startHttpServer(bin, db, { args = [], env = {} } = {}) {
  const proc = spawn(bin, ['serve', '--http', '--port', '0', ...args], {
    env: { ...serverEnv(db), LOREKEEPER_AUTO_SYNC: 'off', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" line within 15 s; stderr:\n${stderr}`)), 15_000);
    proc.stderr.on('data', (chunk) => {
      stderr += chunk.toString();
      const m = stderr.match(/listening on (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`lorekeeper serve --http exited (code ${code}, signal ${signal}) before listening:\n${stderr}`));
    });
  });
  return {
    url,
    proc,
    stderr: () => stderr,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}
