'use strict';
/**
 * The nodes in n8n's editor, driven in a real Chromium as a person would, through the UI only: the
 * stack is started as `npm start` starts it (e2e/ui/lib/stack.js), the owner signs in, then each step
 * below. Every step leaves a screenshot in e2e/ui/screenshots/ (git-ignored); step 5 also saves each
 * example's canvas as docs/images/<example>.png, the pictures the README and docs/ show, and steps 2,
 * 3, 4 and 8 save the pictures of their nodes.
 */
const fs = require('node:fs');
const path = require('node:path');

const stackLib = require('../../scripts/lib/stack');
const { attachStack, startStack } = require('./lib/stack');
const { launchBrowser } = require('./lib/browser');
const editor = require('./lib/editor');
const { progressLog } = require('../n8n/lib/stack');

const SCREENSHOTS = path.join(__dirname, 'screenshots');
const DOCS_IMAGES = path.join(__dirname, '..', '..', 'docs', 'images');
const say = progressLog('ui');

const ctx = {};
let page;

/**
 * The marks of n8n's JSON editor on a field that does not parse (an empty one: "Unexpected end of
 * JSON input", in the tooltip of a red lint mark): CodeMirror's lint classes.
 */
const jsonErrors = (scope) =>
	scope
		.locator('.cm-lint-marker-error, .cm-lintRange-error')
		.or(scope.getByText('Unexpected end of JSON input'));

/** A screenshot in e2e/ui/screenshots/; with `docs`, also the picture docs/images/<docs>.png. */
/** The labels of the parameters that show an issue badge: what a failure names. */
async function issueLabels(issues) {
	const labels = await issues.evaluateAll((badges) =>
		badges.map((badge) => {
			const item = badge.closest('[data-test-id="parameter-item"], .parameter-item');
			return (item?.textContent ?? '?').trim().split('\n')[0].slice(0, 60);
		}),
	);
	return labels.join(', ');
}

async function screenshot(name, { docs } = {}) {
	await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
	if (docs) await page.screenshot({ path: path.join(DOCS_IMAGES, `${docs}.png`) });
}

beforeAll(
	async () => {
		fs.mkdirSync(SCREENSHOTS, { recursive: true });
		// SITE_UI_STACK: a stack.json-like file of a stack already running (developing the steps only).
		ctx.stack = process.env.SITE_UI_STACK
			? attachStack(process.env.SITE_UI_STACK)
			: await startStack({ log: say });
		ctx.browser = await launchBrowser();
		page = ctx.browser.context.pages()[0] ?? (await ctx.browser.context.newPage());
		// CI's two cores run the other suites beside this one: a credential test there has taken over
		// 30 s to answer. A wait that succeeds ends at once, so the limit costs nothing when all is well.
		page.setDefaultTimeout(90_000);
		await editor.signIn(page, ctx.stack.n8nUrl, ctx.stack.state.owner);
		say('signed in');
	},
	15 * 60 * 1000,
);

afterAll(async () => {
	await ctx.browser?.close();
	await ctx.stack?.stop();
	say('done');
});

/** A test whose failure leaves a screenshot of where it stopped; `timeoutMs`: its own limit. */
function step(name, run, timeoutMs) {
	test(
		name,
		async () => {
			try {
				await run();
			} catch (error) {
				await screenshot(`failed-${name.slice(0, 2).replace(/\W/g, '')}`).catch(() => {});
				throw error;
			}
		},
		timeoutMs,
	);
}

step(
	"1. Tenant API credential: a wrong token shows the credential's own message, a good one the connection test succeeding",
	async () => {
		await editor.openNewCredential(page, ctx.stack.n8nUrl, 'Site Management Tenant API');
		await editor.fillCredentialField(page, 'baseUrl', ctx.stack.serverUrl);
		await editor.fillCredentialField(page, 'token', 'stt_this-token-does-not-exist');
		await page.getByTestId('credential-save-button').click();
		await page.getByText('More details').click();
		await expect(
			page
				.getByText('The tenant token was not accepted (unknown, revoked or expired)')
				.first()
				.isVisible(),
		).resolves.toBe(true);
		await screenshot('1-credential-wrong-token');

		await editor.fillCredentialField(page, 'token', ctx.stack.state.demoToken);
		await page.getByTestId('credential-save-button').click();
		await page.getByText('Connection tested successfully').waitFor();
		await screenshot('1-credential-connection-tested');
		await page.keyboard.press('Escape');
	},
);

step(
	'2. Tenant node in a new workflow: Page > Get, page picked from the searched list, Execute step shows the page',
	async () => {
		await page.goto(`${ctx.stack.n8nUrl}/workflow/new`);
		await editor.addNodeAction(page, {
			search: 'Site Management',
			node: 'Site Management Tenant',
			action: 'Get a page',
		});
		await editor.chooseCredential(page, stackLib.CREDENTIALS.tenant.id);
		const { locator, items, before } = await editor.searchResourceLocator(page, 'url', 'about');
		expect(before).toBe(3); // the demo site's pages: /, /about-us, /contact
		// The search goes to the server (name or url fragment): only the matching page stays.
		await items.filter({ hasText: 'About us (/about-us)' }).waitFor();
		await items.filter({ hasText: 'Home (/)' }).waitFor({ state: 'detached' });
		expect((await items.allInnerTexts()).map((text) => text.trim())).toEqual([
			'About us (/about-us)',
		]);
		await screenshot('2-page-list-searched', { docs: 'tenant-page-list' });
		await items.filter({ hasText: 'About us (/about-us)' }).click();
		await expect(locator.getByTestId('rlc-input').inputValue()).resolves.toBe(
			'About us (/about-us)',
		);

		// Our API Call among the resources, and n8n's own Custom API Call (it opens the HTTP Request node
		// with the credential), once each.
		await page.getByTestId('parameter-input-resource').click();
		await page
			.getByRole('option', { name: /^Variable/ })
			.filter({ visible: true })
			.first()
			.waitFor();
		const resources = await page.getByRole('option').filter({ visible: true }).allInnerTexts();
		expect(resources.filter((text) => /^custom api call/i.test(text.trim()))).toHaveLength(1);
		expect(resources.filter((text) => /^api call/i.test(text.trim()))).toHaveLength(1);
		await page.keyboard.press('Escape');

		await page.getByTestId('node-execute-button').click();
		const output = page.getByTestId('output-panel');
		await output.getByText('About us', { exact: true }).first().waitFor();
		await expect(output.getByText('/about-us').first().isVisible()).resolves.toBe(true);
		await screenshot('2-page-get-output', { docs: 'tenant-page-get' });
		await page.getByTestId('ndv-close-button').click();
		// The canvas names the operation, not its raw values.
		await expect(
			page.getByTestId('canvas-node').filter({ hasText: 'Get a page' }).count(),
		).resolves.toBe(1);
		await screenshot('2-canvas-subtitle');
	},
);

step(
	"3. Admin node: Tenant > Create takes its fields through n8n's field mapper; a new tenant shows the service's confirmation",
	async () => {
		await page.goto(`${ctx.stack.n8nUrl}/workflow/new`);
		await editor.addNodeAction(page, {
			search: 'Site Management',
			node: 'Site Management Admin',
			action: 'Create a tenant',
		});
		// Version 2: the fields come from the node's field list, Tenant ID first and required, then
		// the domain; their inputs show because Map Each Column Manually is the default mode.
		const fields = page.getByTestId('mapping-fields-container');
		await fields.getByText('Tenant ID').first().waitFor();
		await expect(fields.getByText('Domain (FQDN)').first().isVisible()).resolves.toBe(true);
		const inputs = fields.getByTestId('parameter-input');
		await expect(inputs.count()).resolves.toBe(2);
		const idInput = inputs.first().locator('input, textarea').first();
		await idInput.click();
		await idInput.fill('ui-test-site');
		await idInput.blur();
		await page.getByTestId('node-execute-button').click();
		const output = page.getByTestId('output-panel');
		await output.getByText('Tenant created successfully.').first().waitFor();
		await screenshot('3-admin-tenant-created', { docs: 'admin-tenant-create' });
		const admin = stackLib.siteClient(ctx.stack.serverUrl, ctx.stack.state.adminToken);
		expect((await admin('POST', '/api/tenant', { id: 'ui-test-site' })).status).toBe(409); // it exists now
		await page.getByTestId('ndv-close-button').click();
	},
);

step(
	'4. Contact Form Trigger: its URLs, manual registration selectable, a test submission arrives, the live webhook untouched',
	async () => {
		const demo = stackLib.siteClient(ctx.stack.serverUrl, ctx.stack.state.demoToken);
		const webhookBefore = (await demo('GET', '/api/settings')).data.settings
			.contact_form_webhook_url;
		expect(webhookBefore).toContain('/webhook/'); // the published example's production URL

		await page.goto(`${ctx.stack.n8nUrl}/workflow/new`);
		await editor.addTrigger(page, {
			search: 'Site Management',
			node: 'Site Management Contact Form Trigger',
		});
		const ndv = page.getByTestId('ndv');
		// Every documented registration mode can be chosen: Manual asks for the Contact Form Secret credential.
		await editor.chooseOption(page, 'registration', 'Manual');
		// It says where to enter the URL and the secret header: a Tenant node's Setting > Update.
		await ndv.getByText('with a Site Management Tenant node: Setting > Update').waitFor();
		await ndv.getByText('Credential for Site Management Contact Form Secret API').waitFor();
		await screenshot('4-trigger-manual-registration');
		await editor.chooseOption(page, 'registration', 'Automatic');
		await editor.chooseCredential(page, stackLib.CREDENTIALS.tenant.id);

		await ndv.getByText('Webhook URLs').click();
		await ndv.getByText('Test URL').first().waitFor();
		expect(await ndv.getByText('/webhook-test/').count()).toBeGreaterThan(0);
		await ndv.getByText('Production URL').first().click();
		expect(await ndv.getByText(/\/webhook\/[^-]/).count()).toBeGreaterThan(0);
		await screenshot('4-trigger-urls');

		await page.getByTestId('trigger-execute-button').click();
		// Listening registers the Test URL as a test webhook on the site; the live setting stays.
		const testWebhookUrls = async () =>
			(await demo('GET', '/api/contact-form/test-webhooks')).data.data.map((hook) => hook.url);
		const registered = await stackLib.waitFor('the test URL registered on the site', async () => {
			const urls = await testWebhookUrls();
			return urls.find((url) => url.includes('/webhook-test/'));
		});
		expect(registered).toContain(ctx.stack.n8nUrl.replace('http://', ''));
		expect((await demo('GET', '/api/settings')).data.settings.contact_form_webhook_url).toBe(
			webhookBefore,
		);
		const posted = await stackLib.siteClient(ctx.stack.serverUrl)('POST', '/forms/demo/contact', {
			name: 'Ada Browser',
			email: 'ada@example.com',
			message: 'Hello from the browser test',
		});
		expect(posted.status).toBeLessThan(300);
		const output = page.getByTestId('output-panel');
		await output.getByText('Hello from the browser test').first().waitFor({ timeout: 60000 });
		await screenshot('4-trigger-submission-arrived', { docs: 'trigger-test-event' });

		// The test event ended the listening: the test webhook is gone, the live one never moved.
		await stackLib.waitFor('the test webhook removed from the site', async () =>
			(await testWebhookUrls()).length === 0 ? true : undefined,
		);
		expect((await demo('GET', '/api/settings')).data.settings.contact_form_webhook_url).toBe(
			webhookBefore,
		);
		await page.getByTestId('ndv-close-button').click();
	},
);

/**
 * Opens a node's panel and waits for it to settle: its option lists loaded (a list that fails shows
 * its issue only then), then an issue badge looked at for up to 60 s, every half second, so a
 * settled panel costs nothing (the panel may still be settling on a loaded machine: a list loading,
 * a locator checking its value).
 */
async function openSettled(node, ndv, issues) {
	await node.dblclick();
	await ndv.waitFor();
	await ndv.getByText('Loading options').first().waitFor({ state: 'hidden' });
	for (let waited = 0; waited < 60_000 && (await issues.count()) > 0; waited += 500)
		await page.waitForTimeout(500);
}

step(
	'5. every example workflow and each of its nodes opens without an error or an issue badge',
	async () => {
		for (const workflow of Object.values(stackLib.WORKFLOWS)) {
			await page.goto(`${ctx.stack.n8nUrl}/workflow/${workflow.id}`);
			const nodes = page.getByTestId('canvas-node');
			await nodes.first().waitFor();
			const count = await nodes.count();
			// Every node of the file is on the canvas (sticky notes are not canvas nodes).
			const saved = JSON.parse(
				fs.readFileSync(path.join(stackLib.EXAMPLES_DIR, workflow.file), 'utf8'),
			);
			expect(count).toBe(saved.nodes.filter((node) => !node.type.endsWith('.stickyNote')).length);
			for (let index = 0; index < count; index++) {
				const node = nodes.nth(index);
				const ndv = page.getByTestId('ndv');
				const issues = ndv.getByTestId('parameter-issues');
				// Named in a failure: which example, which node.
				const where = { file: workflow.file, node: await node.getAttribute('data-node-name') };
				// On a loaded machine a Data table panel has kept a column list's issue after its
				// request timed out (the list is not asked again while the panel is open): a panel
				// whose badge stays is opened once more, as a person would.
				for (let opening = 1; opening <= 2; opening++) {
					if (opening === 2) {
						say(`${where.file} > ${where.node}: opened again after its badge stayed`);
						await page.getByTestId('ndv-close-button').click();
						await ndv.waitFor({ state: 'hidden' });
					}
					await openSettled(node, ndv, issues);
					if ((await issues.count()) === 0) break;
				}
				if ((await issues.count()) > 0)
					say(`${where.file} > ${where.node}: issues at ${await issueLabels(issues)}`);
				expect({ ...where, issues: await issues.count() }).toEqual({ ...where, issues: 0 });
				// An optional JSON field left empty (Banner, JSON Body) shows no parse error.
				expect(await jsonErrors(ndv).count()).toBe(0);
				await page.getByTestId('ndv-close-button').click();
				await ndv.waitFor({ state: 'hidden' });
			}
			expect(await page.getByTestId('node-issues').count()).toBe(0);
			// The whole workflow in view.
			await page.getByTestId('zoom-to-fit').click();
			await page.mouse.move(0, 0);
			await page.waitForTimeout(500);
			const example = path.basename(workflow.file, '.json');
			await screenshot(`5-example-${example}`, { docs: example });
			say(`${workflow.file}: ${count} nodes opened, no issues`);
		}
	},
	// Every node of every example (the AI examples grew an approval, the fleet rollout has 19):
	// more than the suite's 2 minutes, about 8 on a loaded machine.
	10 * 60_000,
);

step(
	"6. the demo's credentials, opened as they come from `npm start`, each pass their connection test; the every-site one says to name a tenant",
	async () => {
		// n8n's own Bearer Auth credential (the MCP example's) has no connection test.
		const tested = Object.values(stackLib.CREDENTIALS).filter(
			(credential) => credential.type !== 'httpBearerAuth',
		);
		for (const credential of tested) {
			await page.goto(`${ctx.stack.n8nUrl}/home/credentials/${credential.id}`);
			let shown;
			if (credential.id === stackLib.CREDENTIALS.managedEverySite.id) {
				// Its Tenant ID is empty on purpose (the Tenant node names the site per item): there is
				// no tenant to test, and the test says so instead of passing.
				await page.getByText('More details').click();
				shown = page.getByText(/Tenant ID is empty/).first();
			} else {
				shown = page.getByText('Connection tested successfully');
			}
			await shown.waitFor();
			await screenshot(`6-credential-${credential.id}`);
			say(`${credential.name}: ${await shown.innerText()}`);
			await page.keyboard.press('Escape');
			await shown.waitFor({ state: 'hidden' });
		}
	},
);

step(
	'7. Content > Update and Custom API Call as they come: the notice visible, Templates empty and required, no JSON error',
	async () => {
		await page.goto(`${ctx.stack.n8nUrl}/workflow/new`);
		await editor.addNodeAction(page, {
			search: 'Site Management',
			node: 'Site Management Tenant',
			action: 'Update page content',
		});
		const ndv = page.getByTestId('ndv');
		// Visible without hovering: a notice, not a tooltip.
		await ndv.getByText('Replaces every content block of the page with Templates').waitFor();
		await ndv.getByText('Clear Banner').first().waitFor();
		expect(await jsonErrors(ndv).count()).toBe(0);
		await expect(
			page.getByTestId('parameter-input-templates').locator('textarea').first().inputValue(),
		).resolves.toBe('');
		await ndv.getByText('Clear All Blocks').first().waitFor();
		await screenshot('7-content-update-as-it-comes');
		await page.getByTestId('ndv-close-button').click();

		await page.goto(`${ctx.stack.n8nUrl}/workflow/new`);
		await editor.addNodeAction(page, {
			search: 'Site Management',
			node: 'Site Management Tenant',
			action: 'Make a custom API call',
		});
		await expect(
			page.getByTestId('parameter-input-path').locator('input').first().inputValue(),
		).resolves.toBe('/api/pages');
		await editor.chooseOption(page, 'method', 'POST');
		await page.getByTestId('parameter-input-body').waitFor();
		expect(await jsonErrors(page.getByTestId('ndv')).count()).toBe(0);
		await screenshot('7-custom-api-call-post');
		await page.getByTestId('ndv-close-button').click();
	},
);

step(
	'8. Contact Form Trigger serving a listed tenant that does not exist: publishing from the editor fails where the user sees it, naming the tenant and why; the workflow is not published',
	async () => {
		const missing = 'ui-no-such-site';
		const demo = stackLib.siteClient(ctx.stack.serverUrl, ctx.stack.state.demoToken);
		const webhookOfDemo = async () =>
			(await demo('GET', '/api/settings')).data.settings.contact_form_webhook_url;
		const webhookBefore = await webhookOfDemo();

		await page.goto(`${ctx.stack.n8nUrl}/workflow/new`);
		await editor.addTrigger(page, {
			search: 'Site Management',
			node: 'Site Management Contact Form Trigger',
		});
		await editor.chooseCredential(page, stackLib.CREDENTIALS.managedEverySite.id);
		await editor.chooseOption(page, 'tenantsServed', 'Listed Tenants');
		await editor.fillParameter(page, 'tenantIds', `demo, ${missing}`);
		await page.getByTestId('ndv-close-button').click();

		const publish = page.getByTestId('workflow-open-publish-modal-button');
		await publish.click();
		await page.getByTestId('workflow-publish-button').click();
		// n8n 2.x publishes in the background: it tries a failing trigger five times, with growing
		// pauses (about 20 s in all), then pushes the failure to the editor, which shows it as a toast.
		const failure = page
			.locator('.el-notification')
			.filter({ hasText: 'Workflow could not be published' });
		await failure.waitFor({ timeout: 90_000 });
		const shown = await failure.innerText();
		expect(shown).toContain(`"${missing}"`);
		expect(shown).toMatch(/not found/i);
		// Not published: the button offers Publish (not "Published"), and says why.
		expect((await publish.innerText()).trim()).toBe('Publish');
		await publish.hover();
		const tooltip = page.getByTestId('tooltip-content').filter({ hasText: "isn't running" });
		await tooltip.waitFor();
		expect(await tooltip.innerText()).toContain(
			"This workflow isn't running. Publish again to retry.",
		);
		await screenshot('8-trigger-publish-failed', { docs: 'trigger-publish-failed' });
		say(`the editor shows: ${shown.replace(/\s+/g, ' ')}`);
		// The other listed tenant was asked first and left as it was.
		expect(await webhookOfDemo()).toBe(webhookBefore);
	},
);
