'use strict';
/**
 * The site side of `npm start`: the reference server as a child process, and the demo tenant with
 * its token and pages (kept and reused on the next start).
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const { ROOT } = require('./runtime');
const { httpGet, waitFor, watchExit } = require('./process');
const stack = require('./stack');

const DEMO_TENANT = 'demo';
const DEMO_PAGES = [
	{
		name: 'Home',
		url: '/',
		locale: 'en',
		templates: [
			{
				type: 'hero',
				title: 'Welcome to the demo site',
				text: 'Built with the Site Management nodes.',
			},
		],
	},
	{
		name: 'About us',
		url: '/about-us',
		locale: 'en',
		templates: [
			{ type: 'heading', text: 'About us' },
			{ type: 'text', body: 'We are a small team that builds websites.' },
		],
	},
	{
		name: 'Contact',
		url: '/contact',
		locale: 'en',
		templates: [
			{ type: 'heading', text: 'Contact' },
			{ type: 'contact-form', fields: ['name', 'email', 'message'] },
		],
	},
];

/** The reference server as a child process in its own process group; resolves once /health answers. */
async function startReferenceServer({ adminToken, dataDir, port, logFile }) {
	fs.mkdirSync(dataDir, { recursive: true });
	const out = fs.openSync(logFile, 'a');
	const child = spawn(
		process.execPath,
		[
			path.join(ROOT, 'reference-server', 'bin', 'site-reference-server.js'),
			'--data-dir',
			dataDir,
			'--enable-variables',
			// n8n runs beside the server on loopback: its webhooks may reach it (refused by default).
			'--webhook-allow',
			'loopback',
			'--host',
			'127.0.0.1',
			'--port',
			String(port),
		],
		{
			cwd: ROOT,
			env: { ...process.env, ADMIN_TOKEN: adminToken },
			stdio: ['ignore', out, out],
			detached: true,
		},
	);
	fs.closeSync(out);
	const { exited, exitPromise, exitError, stop: stopChild } = watchExit(child);
	const url = `http://127.0.0.1:${port}`;
	const log = path.relative(ROOT, logFile);
	try {
		await waitFor('the reference server', async () => (await httpGet(`${url}/health`)) === 200, {
			timeoutMs: 60000,
			stopIf: () => exitError((how) => `the reference server exited (${how}); see ${log}`),
		});
	} catch (error) {
		child.kill('SIGKILL');
		throw exited()
			? error
			: new Error(`the reference server did not answer on ${url}/health within 60 s; see ${log}`);
	}
	return { url, child, stop: async () => void (await stopChild(15000)), exitPromise };
}

/** The demo tenant, a working token for it (reused when it still works) and its pages. */
async function ensureDemoSite(serverUrl, adminToken, state) {
	const admin = stack.siteClient(serverUrl, adminToken);
	const created = await stack.ensureTenant(serverUrl, adminToken, {
		id: DEMO_TENANT,
		fqdn: 'demo.example.com',
	});
	// The acme tenant, empty: the Managed Tenant (acme) credential works from the start, and the
	// every-site example finds it before the onboarding example has run.
	await stack.ensureTenant(serverUrl, adminToken, { id: stack.ONBOARDING_TENANT });
	let tokenChanged = false;
	if (
		!state.demoToken ||
		(await stack.siteClient(serverUrl, state.demoToken)('GET', '/api/pages?per_page=1')).status !==
			200
	) {
		const issued = await admin('POST', '/api/tenant/token', { id: DEMO_TENANT });
		if (issued.status !== 200)
			throw new Error(`could not issue the demo token: HTTP ${issued.status}`);
		state.demoToken = issued.data.token;
		tokenChanged = true;
	}
	const demo = stack.siteClient(serverUrl, state.demoToken);
	for (const page of DEMO_PAGES) {
		const exists = await demo('GET', `/api/pages?url=${encodeURIComponent(page.url)}`);
		if (exists.status === 200 && exists.data.data.length > 0) continue;
		const { templates, ...fields } = page;
		await demo('POST', '/api/page', { ...fields, draft: false });
		await demo('PUT', '/api/content', { url: page.url, templates });
	}
	return { created, tokenChanged };
}

module.exports = { DEMO_TENANT, startReferenceServer, ensureDemoSite };
