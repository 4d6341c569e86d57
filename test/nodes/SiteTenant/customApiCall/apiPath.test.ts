/** The Custom API Call's path check, tested directly. */
import { apiPathProblem } from '../../../../nodes/SiteTenant/actions/customApiCall/apiPath';

test('apiPathProblem keeps the custom call under /api/', () => {
	for (const ok of ['/api/pages', '/api/chatbot/ask', '/api/pages?url=/a/../b', '/api/x%20y'])
		expect(apiPathProblem(ok)).toBeUndefined();
	for (const bad of [
		'https://evil.example/api/x',
		'//evil.example/api/x',
		'javascript:alert(1)',
		'/api/../health',
		'/api/./x',
		'/api/%2E%2E/x',
		'/api\\x',
		'/health',
		'/apix',
		'/api/',
		'/api//x',
		'/api/%zz',
	]) {
		expect(apiPathProblem(bad)).toEqual(expect.any(String));
	}
});

test('apiPathProblem judges the path as the URL parser will send it', () => {
	// Control characters, which the parser drops (tabs, newlines) or which have no place in a path.
	for (const bad of ['/api/.\t./.\t./.\t./x', '/api/.\n./x', '/api/\r/x', '/api/x\u0000'])
		expect(apiPathProblem(bad)).toBe('must not contain control characters (tabs, newlines...)');
	// The parser strips trailing spaces: `.. ` passes as written and is `..` once parsed.
	expect(apiPathProblem('/api/pages/.. ')).toBe('must stay under /api/ once the URL is parsed');
	expect(apiPathProblem('/api/x/.. ')).toBe('must stay under /api/ once the URL is parsed');
	// Spaces inside a segment are kept (encoded) by the parser: still under /api/.
	expect(apiPathProblem('/api/a b')).toBeUndefined();
});
