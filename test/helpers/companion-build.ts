import { spawn } from 'node:child_process';
import { repoRoot } from './corpora';
import { oncePerRun } from './once-per-run';

/**
 * Builds the companion CLI and its phone page into dist/companion/ as a release does
 * (`esbuild.config.mjs production --companion-only`), once per `vitest run` however many
 * end-to-end files ask (once-per-run.ts): they used to build it each, one file at a time.
 */
export async function buildCompanionOnce(): Promise<void> {
  await oncePerRun('companion-build', async () => {
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>(
      (resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['esbuild.config.mjs', 'production', '--companion-only'],
          { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] },
        );
        let err = '';
        child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
        child.on('error', reject);
        child.on('close', (exit) => resolve({ code: exit, stderr: err }));
      },
    );
    if (code !== 0) throw new Error(`companion build failed:\n${stderr}`);
  });
}
