/** Generated page urls, as a client might write them: for the property tests of lib/page-url.ts and the routes. */
import fc from 'fast-check';

/** Pieces that meet the rules' edges: escapes (also of escapes), case, composed forms, refused characters. */
const PIECES = [
	'/',
	'//',
	'%',
	'%25',
	'%2525',
	'%41',
	'%61',
	'%2e',
	'%2E',
	'%2F',
	'%5C',
	'%3F',
	'%C3%A9',
	'%c3%a9',
	'%C3',
	'%E2%80%AE',
	'%C2%85',
	'%ED%A0%80',
	'.',
	'..',
	'\\',
	'A',
	'a',
	'Z',
	'\u00c9',
	'e\u0301',
	'\u0130', // İ: its lower case is two code points
	'\u00df',
	'\u1e9e',
	'\u212a', // the Kelvin sign
	'\u2126', // the Ohm sign
	'\u03a3',
	'\uff21', // fullwidth A
	'\ufb01', // the fi ligature
	'\u200e',
	'\u061c',
	'\u2066',
	'\u0085',
	'\u009b',
	'\u00a0',
	'\ud83d\ude00',
	'\ud800',
	'?',
	'#',
	' ',
];

const piece = fc.oneof(
	{ weight: 3, arbitrary: fc.constantFrom(...PIECES) },
	{ weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 3 }) },
	{ weight: 1, arbitrary: fc.stringMatching(/^[a-z0-9._~-]{1,6}$/) },
);
export const rawPageUrl = fc
	.array(piece, { maxLength: 8 })
	.map((pieces) => pieces.join(''))
	.chain((rest) => fc.constantFrom(`/${rest}`, rest));
