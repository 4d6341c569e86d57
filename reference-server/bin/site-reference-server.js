#!/usr/bin/env node
// Entry point of `npx site-reference-server`; the TypeScript build (npm run build) produces dist/.
require('../dist/cli.js');
