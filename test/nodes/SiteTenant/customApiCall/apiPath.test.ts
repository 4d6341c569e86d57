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
