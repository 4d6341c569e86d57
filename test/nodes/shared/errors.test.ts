/** Reading the service's error answers: pure functions, tested directly. */
import { formatDetails, readErrorBody } from '../../../nodes/shared/errors';

describe('errors', () => {
	test('formatDetails renders field problems as lines', () => {
		expect(
			formatDetails([
				{ field: 'url', problem: 'is required' },
				{ field: 'locale', problem: 'too long' },
			]),
		).toBe('url: is required\nlocale: too long');
		expect(formatDetails({ url: 'is required', extra: { a: 1 } })).toBe(
			'url: is required\nextra: {"a":1}',
		);
		expect(formatDetails(['plain'])).toBe('plain');
		expect(formatDetails([])).toBeUndefined();
		expect(formatDetails(null)).toBeUndefined();
	});

	test('readErrorBody takes objects, JSON text, Buffers and keeps an excerpt of anything else', () => {
		expect(readErrorBody({ error: 'x', message: 'm' })).toEqual({ error: 'x', message: 'm' });
		expect(readErrorBody('{"message":"m"}')).toEqual({ message: 'm' });
		expect(readErrorBody(Buffer.from('{"message":"b"}'))).toEqual({ message: 'b' });
		expect(readErrorBody('<html>Bad gateway</html>')).toEqual({
			message: '<html>Bad gateway</html>',
		});
		expect(readErrorBody('x'.repeat(2000))?.message).toHaveLength(500);
		expect(readErrorBody('')).toBeUndefined();
		expect(readErrorBody([1])).toBeUndefined();
	});
});
