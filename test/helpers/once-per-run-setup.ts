/**
 * globalSetup of the projects that use once-per-run.ts: names this `vitest run` so that its
 * test files, in their separate workers, share one result of an expensive step (the plugin
 * bundle, the companion build), and removes those results' folder when the run ends.
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** This run's folder under test-output/once-per-run/. */
    oncePerRunDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = join(resolve('test-output', 'once-per-run'), `${process.pid}-${Date.now()}`);
  project.provide('oncePerRunDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
