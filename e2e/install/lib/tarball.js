'use strict';
/**
 * What the published tarball may hold: what n8n loads (dist/ JavaScript, the icons, the codex files
 * next to the nodes), package.json, its `main` (index.js, empty), README and LICENSE. Nothing else: no sources, type declarations,
 * source maps, tests or the reference server.
 */
const ALLOWED = [
	/^package\.json$/,
	/^index\.js$/,
	/^README\.md$/,
	/^LICENSE(\.md)?$/,
	/^dist\/(nodes|credentials)\/([\w.-]+\/)*[\w.-]+\.(js|svg|png)$/,
	/^dist\/nodes\/([\w.-]+\/)*[\w.-]+\.node\.json$/,
];
const FORBIDDEN = [
	/\.map$/,
	/\.d\.ts$/,
	/\.ts$/,
	/(^|\/)test(s)?\//,
	/\.test\./,
	/(^|\/)reference-server\//,
];

/** The paths (relative, as `npm pack --json` lists them) that do not belong in the tarball. */
function unexpectedFiles(paths) {
	return paths.filter(
		(file) =>
			!ALLOWED.some((pattern) => pattern.test(file)) ||
			FORBIDDEN.some((pattern) => pattern.test(file)),
	);
}

module.exports = { unexpectedFiles };
