'use strict';
/**
 * The nodes in n8n's editor, driven in a real Chromium as a person would, through the UI only: the
 * stack is started as `npm start` starts it (test-ui/lib/stack.js), the owner signs in, then each step
 * below. Every step leaves a screenshot in test-ui/screenshots/ (git-ignored).
 */
const fs = require('node:fs');
const path = require('node:path');

const stackLib = require('../scripts/lib/stack');
const { startStack } = require('./lib/stack');
const { launchBrowser } = require('./lib/browser');
const editor = require('./lib/editor');

const SCREENSHOTS = path.join(__dirname, 'screenshots');
const started = Date.now();
const say = (message) => process.stderr.write(`[ui +${Math.round((Date.now() - started) / 1000)}s] ${message}\n`);

const ctx = {};
let page;

async function screenshot(name) {
	await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}

beforeAll(async () => {
	fs.mkdirSync(SCREENSHOTS, { recursive: true });
	ctx.stack = await startStack({ log: say });
	ctx.browser = await launchBrowser();
	page = ctx.browser.context.pages()[0] ?? (await ctx.browser.context.newPage());
	page.setDefaultTimeout(30000);
	await editor.signIn(page, ctx.stack.n8nUrl, ctx.stack.state.owner);
	say('signed in');
}, 15 * 60 * 1000);

afterAll(async () => {
	await ctx.browser?.close();
	await ctx.stack?.stop();
	say('done');
});

/** A test whose failure leaves a screenshot of where it stopped. */
function step(name, run) {
	test(name, async () => {
		try {
			await run();
		} catch (error) {
			await screenshot(`failed-${name.slice(0, 2).replace(/\W/g, '')}`).catch(() => {});
			throw error;
		}
	});
}

step('1. Tenant API credential: a wrong token shows the credential\'s own message, a good one the connection test succeeding', async () => {
	await editor.openNewCredential(page, ctx.stack.n8nUrl, 'Site Management Tenant API');
	await editor.fillCredentialField(page, 'baseUrl', ctx.stack.serverUrl);
	await editor.fillCredentialField(page, 'token', 'stt_this-token-does-not-exist');
	await page.getByTestId('credential-save-button').click();
	await page.getByText('More details').click();
	await expect(page.getByText('The tenant token was not accepted (unknown, revoked or expired)').first().isVisible()).resolves.toBe(true);
	await screenshot('1-credential-wrong-token');

	await editor.fillCredentialField(page, 'token', ctx.stack.state.demoToken);
	await page.getByTestId('credential-save-button').click();
	await page.getByText('Connection tested successfully').waitFor();
	await screenshot('1-credential-connection-tested');
	await page.keyboard.press('Escape');
});

step('2. Tenant node in a new workflow: Page > Get, page picked from the searched list, Execute step shows the page', async () => {
	await page.goto(`${ctx.stack.n8nUrl}/workflow/new`);
	await editor.addNodeAction(page, { search: 'Site Management', node: 'Site Management Tenant', action: 'Get a page' });
	const { locator, items, before } = await editor.searchResourceLocator(page, 'url', 'about');
	expect(before).toBe(3); // the demo site's pages: /, /about-us, /contact
	await items.filter({ hasText: 'Home (/)' }).waitFor({ state: 'detached' });
	expect(await items.allInnerTexts()).toEqual(['About us (/about-us)']);
	await screenshot('2-page-list-searched');
	await items.filter({ hasText: 'About us (/about-us)' }).click();
	await expect(locator.getByTestId('rlc-input').inputValue()).resolves.toBe('About us (/about-us)');

	await page.getByTestId('node-execute-button').click();
	const output = page.getByTestId('output-panel');
	await output.getByText('About us', { exact: true }).first().waitFor();
	await expect(output.getByText('/about-us').first().isVisible()).resolves.toBe(true);
	await screenshot('2-page-get-output');
	await page.getByTestId('ndv-close-button').click();
	// The canvas names the operation, not its raw values.
	await expect(page.getByTestId('canvas-node').filter({ hasText: 'Get a page' }).count()).resolves.toBe(1);
	await screenshot('2-canvas-subtitle');
});

step('5. every example workflow and each of its nodes opens without an error or an issue badge', async () => {
	for (const workflow of Object.values(stackLib.WORKFLOWS)) {
		await page.goto(`${ctx.stack.n8nUrl}/workflow/${workflow.id}`);
		const nodes = page.getByTestId('canvas-node');
		await nodes.first().waitFor();
		const count = await nodes.count();
		expect(count).toBeGreaterThan(2);
		for (let index = 0; index < count; index++) {
			const node = nodes.nth(index);
			await node.dblclick();
			const ndv = page.getByTestId('ndv');
			await ndv.waitFor();
			expect(await ndv.getByTestId('parameter-issues').count()).toBe(0);
			await page.getByTestId('ndv-close-button').click();
			await ndv.waitFor({ state: 'hidden' });
		}
		expect(await page.getByTestId('node-issues').count()).toBe(0);
		await screenshot(`5-example-${path.basename(workflow.file, '.json')}`);
		say(`${workflow.file}: ${count} nodes opened, no issues`);
	}
});
