import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

/**
 * Runs `work` once per `vitest run` however many test files ask (each in its own worker):
 * the first caller creates `<run>/<step>/` (creating it is the lock) and runs `work` with that
 * folder; the others wait until it is done and get the same folder. A failed step leaves its
 * error for the waiters to rethrow. The run's folder comes from once-per-run-setup.ts (the
 * project's globalSetup) and is removed when the run ends.
 */
export async function oncePerRun(
  step: string,
  work: (dir: string) => Promise<void>,
): Promise<string> {
  const run = inject('oncePerRunDir');
  if (typeof run !== 'string') {
    throw new Error(
      `oncePerRun(${step}): this vitest project has no globalSetup test/helpers/once-per-run-setup.ts`,
    );
  }
  const dir = join(run, step);
  const done = join(run, `${step}.done`);
  const failed = join(run, `${step}.failed`);
  mkdirSync(run, { recursive: true });
  let first = false;
  try {
    mkdirSync(dir);
    first = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (first) {
    try {
      await work(dir);
    } catch (error) {
      writeFileSync(failed, String((error as Error).stack ?? error));
      throw error;
    }
    writeFileSync(done, '');
    return dir;
  }
  for (;;) {
    if (existsSync(done)) return dir;
    if (existsSync(failed)) {
      throw new Error(`${step} failed in another test file:\n${readFileSync(failed, 'utf8')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
