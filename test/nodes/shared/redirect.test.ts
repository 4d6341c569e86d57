/** The redirect error's text: both addresses, shown without secrets. */
import { isRedirectStatus, redirectMessage, shownUrl } from '../../../nodes/shared/redirect';

test('3xx statuses but 304 are redirects', () => {
	expect([300, 301, 302, 303, 307, 308].every(isRedirectStatus)).toBe(true);
	expect([200, 304, 400, 401].some(isRedirectStatus)).toBe(false);
});

test('shownUrl drops user name, password, query and fragment, control characters, and cuts long ones', () => {
	expect(shownUrl('http://user:pw@site.test:8080/api/x?token=abc#frag')).toBe(
		'http://site.test:8080/api/x',
	);
	expect(shownUrl('/elsewhere?q=1', 'http://site.test/api/pages')).toBe(
		'http://site.test/elsewhere',
	);
	expect(shownUrl('http://other.test/\u0007bell')).toBe('http://other.test/bell');
	expect(shownUrl(`http://other.test/${'a'.repeat(1000)}`)).toHaveLength(301);
});

test('redirectMessage names the address asked and the Location, relative ones resolved', () => {
	const message = redirectMessage('http://site.test/api/pages', 307, {
		Location: 'http://localhost:9/api/pages',
	});
	expect(message).toMatch(
		/^http:\/\/site\.test\/api\/pages answered with a redirect \(HTTP 307\) to http:\/\/localhost:9\/api\/pages\. /,
	);
	expect(redirectMessage('http://site.test/api/pages', 302, { location: '/login' })).toContain(
		'to http://site.test/login.',
	);
	expect(redirectMessage('http://site.test/api/pages', 301, {})).toContain(
		'to no address (no Location header)',
	);
	// n8n 1.x passes no headers of a thrown answer on.
	expect(redirectMessage('http://site.test/api/pages', 308, undefined)).toContain(
		'to another address (this n8n version does not pass it on)',
	);
});
