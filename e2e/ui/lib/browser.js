'use strict';
/**
 * Chromium from the system (Debian's package; no browser download) driven by playwright-core. n8n's
 * editor marks its elements with `data-test-id`, which getByTestId then finds.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium, selectors } = require('playwright-core');

const CHROMIUM_CANDIDATES = [
	process.env.CHROMIUM_PATH,
	'/usr/bin/chromium',
	'/usr/bin/chromium-browser',
	'/usr/bin/google-chrome',
];

function chromiumPath() {
	const found = CHROMIUM_CANDIDATES.find((candidate) => candidate && fs.existsSync(candidate));
	if (!found)
		throw new Error('No Chromium found: apt-get install -y chromium (or set CHROMIUM_PATH)');
	return found;
}

async function launchBrowser() {
	selectors.setTestIdAttribute('data-test-id');
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'site-ui-chromium-'));
	const context = await chromium.launchPersistentContext(profile, {
		executablePath: chromiumPath(),
		headless: true,
		viewport: { width: 1440, height: 900 },
		// The editor's transitions skipped where it honours the setting: a click waits for a still element.
		reducedMotion: 'reduce',
		args: [
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
			'--disable-dev-shm-usage',
		],
	});
	return {
		context,
		async close() {
			await context.close();
			fs.rmSync(profile, { recursive: true, force: true });
		},
	};
}

module.exports = { launchBrowser };
