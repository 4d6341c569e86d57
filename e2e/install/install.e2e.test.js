'use strict';
/**
 * The package installed the way users install it (`npm run test:install`):
 *
 * 1. `npm pack`: the tarball holds only what n8n needs.
 * 2. Published to a local registry (verdaccio on loopback, temporary storage, no uplink), exactly as
 *    it would go to npm; n8n's scanner checks it there (e2e/install/lib/scan.mjs).
 * 3. `npm install n8n-nodes-site-management --legacy-peer-deps` in a fresh `<user folder>/.n8n/nodes`
 *    (n8n's documented manual install), which installs the package alone, not the peer n8n-workflow.
 * 4. n8n (the runtime of scripts/lib/runtime.js) runs a workflow of each node: the Admin and Tenant
 *    nodes with `n8n execute`, the Contact Form Trigger in an active workflow served by `n8n start`.
 * 5. 0.1.1 is published and installed with `npm update`; the workflows keep working.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const runtime = require('../../scripts/lib/runtime');
const runtimeInstall = require('../../scripts/lib/install');
const n8nCommands = require('../../scripts/lib/n8n');
const processes = require('../../scripts/lib/process');
const stack = require('../../scripts/lib/stack');
const e2eStack = require('../n8n/lib/stack');
const { startRegistry } = require('./lib/registry');
const { ensureTools } = require('./lib/tools');
const { unexpectedFiles } = require('./lib/tarball');

const PACKAGE = runtime.PACKAGE_NAME;
const VERSION = require('../../package.json').version;
// The update: the next patch version (0.1.0 -> 0.1.1).
const UPDATE_VERSION = VERSION.replace(
	/^(\d+\.\d+\.)(\d+).*$/,
	(_, head, patch) => `${head}${Number(patch) + 1}`,
);
const ADMIN_WORKFLOW = {
	id: 'e2eAdminOps00001',
	file: path.join(runtime.ROOT, 'e2e', 'n8n', 'workflows', 'admin-operations.json'),
};
const TENANT_WORKFLOW = {
	id: 'e2eTenantOps0001',
	file: path.join(runtime.ROOT, 'e2e', 'n8n', 'workflows', 'tenant-operations.json'),
};
const DEMO_TENANT = 'demo';

const say = e2eStack.progressLog('install');

const ctx = {};

function run(command, args, options) {
	const result = spawnSync(command, args, { encoding: 'utf8', ...options });
	if (result.status !== 0)
		throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
	return result.stdout;
}

async function npmOk(args, options) {
	const result = await ctx.registry.npm(args, options);
	if (result.code !== 0)
		throw new Error(
			`npm ${args.join(' ')} failed (exit ${result.code}):\n${result.stdout}\n${result.stderr}`.slice(
				-5000,
			),
		);
	return result;
}

const execute = (workflowId) => e2eStack.executeOk(workflowId, { env: ctx.env, log: say });

const { oneItem: one } = require('../n8n/lib/run-data');

const installedVersion = () =>
	JSON.parse(
		fs.readFileSync(path.join(ctx.nodesDir, 'node_modules', PACKAGE, 'package.json'), 'utf8'),
	).version;

/** What the Admin and Tenant workflows must have done, checked on their output and on the server. */
async function expectAdminWorkflowWorks() {
	const run = await execute(ADMIN_WORKFLOW.id);
	expect(one(run, 'Create tenant')).toMatchObject({ id: 'e2e-tmp' });
	expect(one(run, 'Rename tenant')).toMatchObject({ id: 'e2e-renamed', old_id: 'e2e-tmp' });
	expect(one(run, 'Issue token').token).toMatch(/^stt_/);
	expect(one(run, 'Delete tenant')).toMatchObject({
		message: 'Tenant deleted successfully.',
		id: 'e2e-renamed',
	});
	expect((await ctx.admin('DELETE', '/api/tenant', { id: 'e2e-renamed' })).status).toBe(404);
}

/** Posts a contact form to the site and waits for the workflow's notification to reach the site. */
async function expectContactFormDelivered(name) {
	const submitted = await ctx.public('POST', `/forms/${DEMO_TENANT}/contact`, {
		name,
		email: 'visitor@example.com',
		message: `Hello from ${name}`,
	});
	expect(submitted.status).toBe(202);
	const id = submitted.data.submission_id;
	const notification = await stack
		.waitFor(
			`the notification of ${name}'s message`,
			async () =>
				(await ctx.demo('GET', '/api/notifications')).data.data.find(
					(n) => n.id === `contact-${id}`,
				),
			{
				timeoutMs: 60000,
				everyMs: 500,
			},
		)
		.catch(async (error) => {
			// What the site did with the delivery, to tell a missing delivery from a failed workflow.
			const delivery = (await ctx.demo('GET', '/api/contact-form/deliveries')).data.data.find(
				(d) => d.submission_id === id,
			);
			throw new Error(`${error.message}; the site's delivery: ${JSON.stringify(delivery)}`);
		});
	expect(notification.message).toContain(`New contact-form message from ${name}`);
}

async function startN8n() {
	ctx.n8n = await n8nCommands.startN8n({
		env: ctx.env,
		port: ctx.port,
		logFile: path.join(ctx.workDir, 'n8n.log'),
	});
	say(`n8n ready on port ${ctx.port}`);
}

/**
 * Waits until n8n serves the trigger's production URL: a delivery without the secret gets the
 * trigger's 401 (and starts nothing) instead of n8n's 404. n8n 1.x answers its readiness check before
 * it has activated the workflows, and the site does not retry a 404.
 */
async function waitForTriggerWebhook() {
	const url = (await ctx.demo('GET', '/api/settings')).data.settings.contact_form_webhook_url;
	await stack.waitFor(
		"n8n to serve the trigger's production URL",
		async () =>
			(
				await fetch(url, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: '{}',
				})
			).status === 401,
		{
			timeoutMs: 90000,
			everyMs: 500,
		},
	);
}

async function stopN8n() {
	if (ctx.n8n) await ctx.n8n.stop();
	ctx.n8n = undefined;
}

beforeAll(
	async () => {
		ctx.workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-install-'));
		const tools = await ensureTools({ log: say });
		ctx.scannerDir = tools.scannerDir;
		await runtimeInstall.ensureRuntime({ log: say });
		ctx.registry = await startRegistry({
			verdaccioBin: tools.verdaccioBin,
			workDir: ctx.workDir,
			log: say,
		});

		ctx.server = await e2eStack.startReferenceServer({
			enableVariables: true,
			deliveryRetryBaseMs: 200,
			// n8n runs beside the server on loopback, which webhooks reach only when allowed.
			webhookAllow: 'loopback',
		});
		ctx.admin = stack.siteClient(ctx.server.url, ctx.server.adminToken);
		ctx.public = stack.siteClient(ctx.server.url);
		const demo = await e2eStack.addTenant(ctx.server, DEMO_TENANT);
		ctx.demoToken = demo.token;
		ctx.demo = demo.client;

		ctx.userFolder = path.join(ctx.workDir, 'n8n-user');
		ctx.nodesDir = path.join(n8nCommands.n8nFolder(ctx.userFolder), 'nodes');
		ctx.port = await processes.freePort();
		ctx.env = n8nCommands.n8nEnv({
			userFolder: ctx.userFolder,
			port: ctx.port,
			brokerPort: await processes.freePort(),
		});
	},
	30 * 60 * 1000,
);

afterAll(async () => {
	await stopN8n();
	if (ctx.registry) await ctx.registry.stop();
	if (ctx.server) await ctx.server.close();
	if (ctx.workDir && !process.env.SITE_E2E_KEEP)
		fs.rmSync(ctx.workDir, { recursive: true, force: true });
	else if (ctx.workDir) say(`kept ${ctx.workDir}`);
});

test('npm pack: the tarball holds dist/ (JavaScript, icons, codex files), package.json, README and LICENSE, nothing else', async () => {
	const packDir = path.join(ctx.workDir, 'pack');
	fs.mkdirSync(packDir);
	const [packed] = JSON.parse(
		run('npm', ['pack', '--json', '--pack-destination', packDir], { cwd: runtime.ROOT }),
	);
	ctx.tarball = path.join(packDir, packed.filename);
	const files = packed.files.map((file) => file.path).sort();
	say(
		`${packed.filename}: ${files.length} files, ${packed.size} bytes packed, ${packed.unpackedSize} unpacked`,
	);

	expect(unexpectedFiles(files)).toEqual([]);
	// The check itself: what must never ship is caught.
	const forbidden = [
		'dist/nodes/A/A.node.js.map',
		'dist/nodes/A/A.node.d.ts',
		'nodes/A/A.node.ts',
		'test/a.test.ts',
		'reference-server/dist/index.js',
		'dist/package.json',
	];
	expect(unexpectedFiles(forbidden)).toEqual(forbidden);
	// Everything n8n loads is in it: each node and credential of package.json "n8n", with its icons
	// and (for nodes) its codex file.
	const manifest = require('../../package.json').n8n;
	for (const entry of [...manifest.nodes, ...manifest.credentials]) {
		expect(files).toContain(entry);
		expect(files).toContain(path.posix.join(path.posix.dirname(entry), 'site.svg'));
		expect(files).toContain(path.posix.join(path.posix.dirname(entry), 'site.dark.svg'));
	}
	for (const node of manifest.nodes) expect(files).toContain(node.replace(/\.js$/, '.json'));
	expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md']));
	expect(files.some((file) => /^LICENSE/.test(file))).toBe(true);
});

test("published to the local registry, it passes n8n's scanner (source and tarball legs)", async () => {
	await npmOk(['publish', ctx.tarball]);
	const info = JSON.parse((await npmOk(['view', `${PACKAGE}@${VERSION}`, '--json'])).stdout);
	expect(info).toMatchObject({
		name: PACKAGE,
		version: VERSION,
		peerDependencies: { 'n8n-workflow': '*' },
	});
	expect(info.dependencies).toBeUndefined();

	// The scanner lints the source the provenance points at: the tracked package.json, nodes/ and credentials/.
	const sourceDir = path.join(ctx.workDir, 'source');
	for (const file of run('git', ['ls-files', '--', 'package.json', 'nodes', 'credentials'], {
		cwd: runtime.ROOT,
	})
		.split('\n')
		.filter(Boolean)) {
		fs.mkdirSync(path.dirname(path.join(sourceDir, file)), { recursive: true });
		fs.copyFileSync(path.join(runtime.ROOT, file), path.join(sourceDir, file));
	}
	const scan = await processes.runCapture(
		process.execPath,
		[
			path.join(__dirname, 'lib', 'scan.mjs'),
			ctx.scannerDir,
			ctx.registry.url,
			`${PACKAGE}@${VERSION}`,
			sourceDir,
		],
		// Without jest's NODE_ENV=test: eslint-plugin-n8n-nodes-base then takes every file for its own test fixture.
		{
			env: Object.fromEntries(
				Object.entries(ctx.registry.env).filter(
					([key]) => key !== 'NODE_ENV' && !key.startsWith('JEST_'),
				),
			),
			timeoutMs: 240000,
		},
	);
	say(`scanner:\n${scan.stdout.split('\n').slice(0, -2).join('\n')}`);
	const report = JSON.parse(scan.stdout.trim().split('\n').pop());
	expect({ source: report.source, tarball: report.tarball }).toEqual({
		source: { passed: true, message: null, details: null },
		tarball: { passed: true, message: null, details: null },
	});
	// A local publish carries no provenance statement (the GitHub Actions publish adds it): the
	// scanner's provenance check runs and says so.
	expect(report.provenance).toEqual({
		passed: false,
		message: expect.stringMatching(/provenance/),
	});
	expect(scan.code).toBe(0);
});

test('npm install --legacy-peer-deps in <user folder>/.n8n/nodes installs the package alone, not the peer n8n-workflow', async () => {
	// Without the option npm installs the peer too; the local registry has no n8n-workflow, so it fails.
	const plainDir = path.join(ctx.workDir, 'plain-install');
	fs.mkdirSync(plainDir);
	const plain = await ctx.registry.npm(['install', PACKAGE], { cwd: plainDir });
	expect(plain.code).not.toBe(0);
	expect(`${plain.stdout}${plain.stderr}`).toMatch(/n8n-workflow/);

	fs.mkdirSync(ctx.nodesDir, { recursive: true });
	await npmOk(['install', PACKAGE, '--legacy-peer-deps'], { cwd: ctx.nodesDir });
	const installed = fs
		.readdirSync(path.join(ctx.nodesDir, 'node_modules'))
		.filter((entry) => !entry.startsWith('.'));
	expect(installed).toEqual([PACKAGE]);
	expect(installedVersion()).toBe(VERSION);
	expect(
		JSON.parse(fs.readFileSync(path.join(ctx.nodesDir, 'package.json'), 'utf8')).dependencies,
	).toEqual({ [PACKAGE]: `^${VERSION}` });
});

test('n8n loads it: a workflow of each node runs (Admin and Tenant with n8n execute, the Contact Form Trigger active in n8n start)', async () => {
	// From the CLI: the workflows below run with `n8n execute` before any n8n runs here.
	await e2eStack.importSiteCredentials(ctx, {}, { cli: true });
	await stack.importWorkflows(ctx.env, ctx.userFolder, [
		ADMIN_WORKFLOW.file,
		TENANT_WORKFLOW.file,
		path.join(stack.EXAMPLES_DIR, stack.WORKFLOWS.contactForm.file),
	]);

	await expectAdminWorkflowWorks();

	const tenantRun = await execute(TENANT_WORKFLOW.id);
	expect(one(tenantRun, 'Create page')).toMatchObject({ url: '/e2e-page' });
	expect(one(tenantRun, 'Upload asset')).toMatchObject({ name: 'hello-e2e.txt' });
	expect(one(tenantRun, 'Delete page')).toMatchObject({ deleted: true });
	expect((await ctx.demo('GET', '/api/settings')).data.settings).toMatchObject({
		google_code: 'G-E2E0001',
	});

	await stack.publishWorkflow(ctx.env, stack.WORKFLOWS.contactForm.id);
	await startN8n();
	await stack.waitFor(
		'the trigger to register its webhook URL',
		async () => (await ctx.demo('GET', '/api/settings')).data.settings.contact_form_webhook_url,
		{
			timeoutMs: 90000,
			everyMs: 500,
		},
	);
	await waitForTriggerWebhook();
	await expectContactFormDelivered('Ada');
	await stopN8n();
});

test(`the next version (${UPDATE_VERSION}) published and installed with npm update: the workflows keep working`, async () => {
	// The same build under the next version, published the same way.
	const nextDir = path.join(ctx.workDir, 'next');
	fs.mkdirSync(nextDir);
	run('tar', ['-xzf', ctx.tarball, '-C', nextDir, '--strip-components=1']);
	const manifest = JSON.parse(fs.readFileSync(path.join(nextDir, 'package.json'), 'utf8'));
	fs.writeFileSync(
		path.join(nextDir, 'package.json'),
		`${JSON.stringify({ ...manifest, version: UPDATE_VERSION }, null, 2)}\n`,
	);
	await npmOk(['publish', nextDir]);

	await npmOk(['update', PACKAGE, '--legacy-peer-deps'], { cwd: ctx.nodesDir });
	expect(installedVersion()).toBe(UPDATE_VERSION);
	expect(
		fs
			.readdirSync(path.join(ctx.nodesDir, 'node_modules'))
			.filter((entry) => !entry.startsWith('.')),
	).toEqual([PACKAGE]);

	await expectAdminWorkflowWorks();
	await startN8n();
	await waitForTriggerWebhook();
	await expectContactFormDelivered('Grace');
	await stopN8n();
});
