import { BASELINE_ENGINES, runEval } from './main';

export interface CliOptions {
  repo: string;
  corpora: string;
  /** The bundled USE-lite worker, for engines that embed. */
  workerFile: string;
}

/** Entry point bundled by scripts/eval.mjs. */
export async function main(argv: readonly string[], options: CliOptions): Promise<void> {
  await runEval(argv, { repo: options.repo, corpora: options.corpora, engines: BASELINE_ENGINES });
}
