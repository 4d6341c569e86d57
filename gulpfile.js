// Copies what tsc does not: node and credential icons and the codex files (<Node>.node.json),
// keeping their paths under dist/ so `file:` icon references resolve next to the compiled classes.
const { src, dest } = require('gulp');

function copyIcons() {
	return src(['nodes/**/*.{png,svg}', 'credentials/**/*.{png,svg}', 'nodes/**/*.node.json'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports['build:icons'] = copyIcons;
