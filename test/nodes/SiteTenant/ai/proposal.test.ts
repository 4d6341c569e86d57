/** Reading an AI step's output as a content proposal, and the diff's stable JSON: pure functions. */
import { stableStringify } from '../../../../nodes/shared/json';
import {
	extractJsonFromText,
	getByPath,
	parseProposal,
	ProposalError,
} from '../../../../nodes/SiteTenant/actions/ai/proposal';

describe('proposal parsing', () => {
	const proposal = { url: '/a', templates: [{ type: 'text' }] };

	test('extractJsonFromText prefers whole JSON, then json fences, then other fences, then objects in prose', () => {
		expect(extractJsonFromText(JSON.stringify(proposal))).toEqual(proposal);
		expect(extractJsonFromText('```js\n{"x": 1}\n```\n```json\n{"y": 2}\n```')).toEqual({ y: 2 });
		expect(extractJsonFromText('Intro\n```\n{"z": 3}\n```')).toEqual({ z: 3 });
		expect(extractJsonFromText('```json\n{"open": true}')).toEqual({ open: true });
		expect(extractJsonFromText('Note {"a": "}"} then {"url": "/b", "templates": []}.')).toEqual({
			url: '/b',
			templates: [],
		});
		expect(() => extractJsonFromText('  ')).toThrow(ProposalError);
		expect(() => extractJsonFromText('no json')).toThrow(
			'No JSON object found in the proposal text',
		);
	});

	test('getByPath follows dots and indexes', () => {
		const value = { a: { b: [{ c: 1 }, { c: 2 }] }, 'x.y': 3 };
		expect(getByPath(value, 'a.b[1].c')).toBe(2);
		expect(getByPath(value, 'a.b.0.c')).toBe(1);
		expect(getByPath(value, '')).toBe(value);
		expect(getByPath(value, 'a.missing.c')).toBeUndefined();
		expect(getByPath(value, 'a.b[5].c')).toBeUndefined();
		expect(getByPath(value, 'constructor')).toBeUndefined();
	});

	test('parseProposal validates and reports every problem; url option fills in or must match', () => {
		expect(parseProposal(proposal)).toEqual({ proposal, ignoredKeys: [] });
		expect(parseProposal({ ...proposal, banner: null, notes: 'x' })).toEqual({
			proposal: { ...proposal, banner: null },
			ignoredKeys: ['notes'],
		});
		expect(parseProposal({ templates: [] }, { url: '/given' }).proposal).toEqual({
			url: '/given',
			templates: [],
		});
		expect(() => parseProposal(proposal, { url: '/other' })).toThrow(
			'does not match the URL parameter "/other"',
		);
		try {
			parseProposal({ url: 5, templates: [null], banner: 1 });
			throw new Error('no error');
		} catch (error) {
			expect(error).toBeInstanceOf(ProposalError);
			expect((error as ProposalError).problems).toEqual([
				'Proposal url must be a string, got a number',
				'Proposal templates[0] must be an object, got null',
				'Proposal banner must be an object or null, got a number',
			]);
		}
		expect(() => parseProposal(null)).toThrow('The proposal is empty');
		expect(() => parseProposal(42)).toThrow('Proposal must be a JSON object, got a number');
		const deep = Array.from({ length: 12 }).reduce<unknown>(
			(inner) => ({ message: inner }),
			JSON.stringify(proposal),
		);
		expect(() => parseProposal(deep)).toThrow('nested too deeply');
	});
});

test('stableStringify ignores key order', () => {
	expect(stableStringify({ b: 1, a: [{ d: 2, c: 3 }] })).toBe(
		stableStringify({ a: [{ c: 3, d: 2 }], b: 1 }),
	);
	expect(stableStringify({ a: 1 })).not.toBe(stableStringify({ a: 2 }));
	expect(stableStringify([1, 2])).not.toBe(stableStringify([2, 1]));
});
