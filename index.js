// n8n loads the nodes and credentials listed in package.json "n8n" (under dist/); this module
// only lets the package's "main" entry resolve.
module.exports = {};
