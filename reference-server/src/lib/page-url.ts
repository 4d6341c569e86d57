import { validationFailed } from '../errors/api-error';
import { withoutTrailingSlashes } from './slashes';

/**
 * One page, one URL: the form a page's url is stored and looked up in. What a person reads as the
 * same address is the same page: percent-encoding decoded, Unicode in NFC, letters in lower case, no
 * trailing slash (but on `/`). What a browser never sends as a path, or cannot be told apart when
 * read, is refused however it is written (raw or percent-encoded): a query or fragment, dot segments,
 * `//host` and `/\host`, whitespace, control, invisible (every default-ignorable code point) and
 * bidirectional-control characters,
 * compatibility forms (fullwidth letters), escapes that are not UTF-8 or that encode another escape.
 *
 * The stored form is a fixed point (canonicalising it again gives it back): it holds no `%XX` escape,
 * so the url a page is listed under names that page and no other. The OpenAPI document's pattern is
 * built from the same character list (PAGE_URL_PATTERN).
 */

/**
 * Never in a page path: whitespace, C0 and C1 controls and DEL, invisible characters (soft hyphen,
 * combining grapheme joiner, Hangul fillers, zero-width characters, word joiner, invisible operators,
 * BOM, Mongolian vowel separator) and the bidirectional marks, embeddings, overrides and isolates that
 * make a url read other than it is. Written as regex escapes, for this file and the OpenAPI pattern.
 */
const REFUSED_CHARACTERS =
	'\\s\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u206f\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0\\ufff0-\\ufff8';

/**
 * Every character Unicode says to draw as nothing (Default_Ignorable_Code_Point): the ones above and
 * those beyond the BMP, which the OpenAPI pattern leaves to this check (variation selectors
 * supplement, tag characters, musical symbol formatting, shorthand format controls). `/about` with
 * one of them after it would list as a second `/about`.
 */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/u;

/** A page path as the OpenAPI document can say it (the raw characters; encoded ones are checked here). */
export const PAGE_URL_PATTERN = `^(?!.*[/\\\\]\\.{1,2}(?:[/\\\\]|$))/(?![/\\\\])[^?#${REFUSED_CHARACTERS}]*$`;

export const PAGE_URL_MAX_LENGTH = 2048;

const PAGE_URL = new RegExp(PAGE_URL_PATTERN, 'u');
const ESCAPE_RUN = /(?:%[0-9a-f]{2})+/gi;
const ESCAPE = /%[0-9a-f]{2}/i;
const LONE_SURROGATE = /\p{Cs}/u;

export type PageUrlCheck = { url: string } | { problem: string };

const problem = (text: string): PageUrlCheck => ({ problem: text });

export function canonicalPageUrl(raw: string): PageUrlCheck {
	if (/[?#]/.test(raw)) {
		return problem(
			'must not have a query (?) or fragment (#): a browser never asks the site for them as part of the page',
		);
	}
	let decoded: string;
	try {
		decoded = raw.replace(ESCAPE_RUN, (run) => decodeURIComponent(run));
	} catch {
		return problem('has percent-escapes that are not UTF-8');
	}
	// %2541 decodes to %41: read again it would name another page, so the stored form never holds one.
	if (ESCAPE.test(decoded)) {
		return problem('is percent-encoded twice (%25 followed by an escape): write the character');
	}
	if (LONE_SURROGATE.test(decoded)) return problem('is not valid Unicode text');
	const url = decoded.normalize('NFC').toLowerCase().normalize('NFC');
	if (!PAGE_URL.test(url)) {
		return problem(
			`${raw === decoded ? 'must be' : 'must decode to'} a site path: starting with a single / (not // or /\\), without whitespace, control, invisible or bidirectional-control characters, ?, #, or . and .. segments`,
		);
	}
	const ignorable = IGNORABLE.exec(url)?.[0];
	if (ignorable !== undefined) {
		const code = ignorable.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
		return problem(
			`${raw === decoded ? 'contains' : 'decodes to'} an invisible character (U+${code}, a default-ignorable code point): the url would look like another`,
		);
	}
	const plain = url.normalize('NFKC');
	if (plain !== url) {
		return problem(
			`contains compatibility characters (fullwidth letters, ligatures…): write "${plain}"`,
		);
	}
	const stored = url.length > 1 ? withoutTrailingSlashes(url) : url;
	if (stored.length > PAGE_URL_MAX_LENGTH) {
		return problem(`must be at most ${PAGE_URL_MAX_LENGTH} characters`);
	}
	return { url: stored };
}

/** The canonical url, or a 400 naming the field. */
export function pageUrlOrThrow(raw: string, field = 'url'): string {
	const checked = canonicalPageUrl(raw);
	if ('problem' in checked) throw validationFailed([{ field, problem: checked.problem }]);
	return checked.url;
}
