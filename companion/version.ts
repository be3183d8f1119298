import { version } from '../package.json';

/** The companion's version: the package's, bundled in at build time. */
export const COMPANION_VERSION: string = version;
