/** Joining the credential's base URL and a path. */
import { joinUrl } from '../../../nodes/shared/url';

test('joinUrl neither doubles nor loses slashes', () => {
	expect(joinUrl('http://h:1', '/api/pages')).toBe('http://h:1/api/pages');
	expect(joinUrl('http://h:1/', '/api/pages')).toBe('http://h:1/api/pages');
	expect(joinUrl('http://h:1///', 'api/pages')).toBe('http://h:1/api/pages');
	expect(joinUrl(' http://h:1/site/ ', '//api/pages')).toBe('http://h:1/site/api/pages');
	expect(joinUrl('http://h:1/', '')).toBe('http://h:1');
});
