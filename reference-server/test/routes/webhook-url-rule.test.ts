/**
 * A webhook URL (the settings' contact_form_webhook_url, a test webhook's url): the OpenAPI document
 * states the rule the server applies, so what the document allows the server takes (but for where the
 * URL points, refused at run time on purpose and said so in the description), and what the server
 * refuses as "not a URL" the document refuses too.
 */
import fc from 'fast-check';
import { isHttpUrl } from '../../src/routes/settings';
import { WEBHOOK_URL } from '../../src/schemas/settings';
import { detailFields, expectError } from '../helpers';
import { documentAjv, requestBodySchema, useDocumentServer } from '../helpers/openapi-schemas';

const server = useDocumentServer();

const SETTINGS = ['POST', '/api/settings', 'contact_form_webhook_url'] as const;
const TEST_WEBHOOK = ['POST', '/api/contact-form/test-webhooks', 'url'] as const;
type Target = readonly [method: string, path: string, field: string];

/** Values no URL parser takes (or that would parse as something else): the fuzzer's finds and kin. */
const NOT_URLS = [
	'https://>',
	'http://<x>/',
	'https://a b.example/',
	'https://example.com:65536/',
	'https://example.com:99999999/',
	'https://1.2.3.999/',
	'https://example.123/',
	'https://example.0x1f/',
	'https://[:::]/',
	'https://[1:2:3:4:5:6:7:8:9]/',
	'https://a|b.example/',
	'https://%41.example/',
	'ftp://example.com/',
	'https://',
	'example.com',
];

/** Values the pattern allows, with a host the server takes without a name lookup. */
const PUBLIC_HOSTS = ['93.184.215.14', '[2606:4700:4700::1111]', '[::ffff:8.8.8.8]'];

function bodyFor(target: Target, url: string): Record<string, unknown> {
	return { [target[2]]: url };
}

function documentAllows(target: Target, url: string): boolean {
	const validate = documentAjv().compile(requestBodySchema(server.doc, target[0], target[1]));
	return validate(bodyFor(target, url)) as boolean;
}

async function send(target: Target, url: string) {
	return server.tenant.api.post(target[1], bodyFor(target, url));
}

describe.each([SETTINGS, TEST_WEBHOOK])('%s %s field %s', (...target) => {
	it('the document refuses every value the server cannot parse, and so does the server, naming the field', async () => {
		for (const url of NOT_URLS) {
			expect({ url, allowed: documentAllows(target, url) }).toEqual({ url, allowed: false });
			const body = expectError(await send(target, url), 400, 'validation_failed');
			expect({ url, fields: detailFields(body) }).toEqual({ url, fields: [target[2]] });
		}
	});

	it('a sample of values the document allows is accepted by the server', async () => {
		const tail = fc.stringMatching(/^(?::[1-9][0-9]{0,3})?(?:[/?#][!-~]{0,30})?$/);
		const userinfo = fc.stringMatching(/^(?:[A-Za-z0-9._~!$&'()*+,;=:%-]{0,12}@)?$/);
		const sample = fc.sample(
			fc
				.tuple(fc.constantFrom('http', 'https'), userinfo, fc.constantFrom(...PUBLIC_HOSTS), tail)
				.map(([scheme, user, host, rest]) => `${scheme}://${user}${host}${rest}`),
			{ numRuns: 25, seed: 34 },
		);
		for (const url of sample) {
			expect({ url, allowed: documentAllows(target, url) }).toEqual({ url, allowed: true });
			const res = await send(target, url);
			expect({ url, status: res.status, body: res.data }).toEqual({
				url,
				status: 200,
				body: expect.anything(),
			});
			// A tenant has at most 10 test webhooks at once.
			if (target[1] === TEST_WEBHOOK[1])
				await server.tenant.api.delete(target[1], { data: { url } });
		}
	});

	it('an xn-- label that is not punycode is allowed by the pattern and refused when set, as the description says', async () => {
		const url = 'https://xn--a.example/';
		const schema = requestBodySchema(server.doc, target[0], target[1]) as any;
		expect(schema.properties[target[2]].description).toMatch(
			/xn-- label that is not valid punycode/,
		);
		expect(documentAllows(target, url)).toBe(true);
		const body = expectError(await send(target, url), 400, 'validation_failed');
		expect(detailFields(body)).toEqual([target[2]]);
	});

	it('a private target is allowed by the pattern and refused when set, as the description says', async () => {
		const url = 'http://10.1.2.3:8080/hook';
		const schema = requestBodySchema(server.doc, target[0], target[1]) as any;
		expect(schema.properties[target[2]].description).toMatch(/loopback, private/);
		expect(documentAllows(target, url)).toBe(true);
		const body = expectError(await send(target, url), 400, 'validation_failed');
		expect(body.details).toEqual([
			{ field: target[2], problem: expect.stringMatching(/^must not point to 10\.1\.2\.3/) },
		]);
	});
});

describe('the webhook URL pattern', () => {
	const pattern = new RegExp(`^${WEBHOOK_URL}$`);
	// An xn-- label must also be valid punycode, which no pattern can say (refused when set, above).
	const punycodeLabel = /(?:^|[/.@])xn--/i;

	it('admits only what the server parses as an http(s) URL (new URL), but for xn-- labels', () => {
		fc.assert(
			fc.property(
				fc.stringMatching(pattern).filter((url) => !punycodeLabel.test(url)),
				(url) => isHttpUrl(url),
			),
			{ numRuns: 3000, seed: 34 },
		);
	});

	it('takes ordinary webhook URLs', () => {
		for (const url of [
			'https://hooks.example.com/webhook/abc?x=1#f',
			'http://localhost:5678/webhook-test/5f1c/contact',
			'https://user:p%40ss@n8n.example.org:8443/webhook/x',
			'http://127.0.0.1:5678/webhook/x',
			'http://[::1]:5678/',
			'https://xn-a.example/',
			'https://xn--mnchen-3ya.de/webhook/x',
		])
			expect({ url, matches: pattern.test(url), parses: isHttpUrl(url) }).toEqual({
				url,
				matches: true,
				parses: true,
			});
	});
});
