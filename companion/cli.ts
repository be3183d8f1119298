#!/usr/bin/env node
// Placeholder entry so the build has a target; replaced by the real CLI.
console.log('cairn-companion: not built yet');
process.exit(1);
