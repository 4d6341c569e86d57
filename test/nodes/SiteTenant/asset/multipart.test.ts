/** The multipart envelope of an asset upload: pure functions, tested directly. */
import {
	buildMultipartEnvelope,
	escapeQuotedParameter,
	isValidMimeType,
	multipartBuffer,
	multipartChunks,
} from '../../../../nodes/SiteTenant/actions/asset/multipart';

describe('multipart', () => {
	test('the envelope around the file bytes is well-formed', () => {
		const envelope = buildMultipartEnvelope(
			[{ name: 'name', value: 'Team' }],
			{ fieldName: 'file', fileName: 'a "b".txt', contentType: 'text/plain' },
			'BOUNDARY',
		);
		expect(envelope.contentType).toBe('multipart/form-data; boundary=BOUNDARY');
		expect(multipartBuffer(envelope, Buffer.from('DATA')).toString()).toBe(
			'--BOUNDARY\r\nContent-Disposition: form-data; name="name"\r\n\r\nTeam\r\n' +
				'--BOUNDARY\r\nContent-Disposition: form-data; name="file"; filename="a %22b%22.txt"\r\nContent-Type: text/plain\r\n\r\n' +
				'DATA\r\n--BOUNDARY--\r\n',
		);
	});

	test('header values cannot be injected', () => {
		expect(escapeQuotedParameter('a\r\nb"c')).toBe('a%0D%0Ab%22c');
		expect(isValidMimeType('image/png')).toBe(true);
		expect(isValidMimeType('text/plain; charset=utf-8')).toBe(true);
		expect(isValidMimeType('text/plain\r\nX-Evil: 1')).toBe(false);
		expect(isValidMimeType('nonsense')).toBe(false);
		const envelope = buildMultipartEnvelope(
			[],
			{ fieldName: 'file', fileName: 'f', contentType: 'text/plain\r\nX-Evil: 1' },
			'B',
		);
		expect(envelope.preamble.toString()).not.toContain('\r\nX-Evil');
	});

	test('streamed chunks refuse a file whose size differs from the recorded one', async () => {
		const envelope = buildMultipartEnvelope(
			[],
			{ fieldName: 'file', fileName: 'f', contentType: 'text/plain' },
			'B',
		);
		async function* file() {
			yield Buffer.from('abc');
			yield Buffer.from('def');
		}
		const collect = async (expected?: number) => {
			const parts: Buffer[] = [];
			for await (const chunk of multipartChunks(envelope, file(), expected)) parts.push(chunk);
			return Buffer.concat(parts).toString();
		};
		expect(await collect(6)).toBe(multipartBuffer(envelope, Buffer.from('abcdef')).toString());
		expect(await collect()).toBe(multipartBuffer(envelope, Buffer.from('abcdef')).toString());
		await expect(collect(5)).rejects.toThrow('larger than its recorded size');
		await expect(collect(7)).rejects.toThrow('has 6 bytes');
	});
});
