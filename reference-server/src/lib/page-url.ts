import { validationFailed } from '../errors/api-error';

/**
 * One page, one URL: the form a page's url is stored and looked up in. What a person reads as the
 * same address is the same page: percent-encoding decoded, Unicode in NFC, letters in lower case, no
 * trailing slash (but on `/`). What a browser never sends as a path, or cannot be told apart when
 * read, is refused: a query or fragment, dot segments, invisible characters, compatibility forms
 * (fullwidth letters, the Kelvin sign).
 */

/** Invisible in a URL bar: soft hyphen, zero-width characters, word joiner, BOM, Mongolian vowel separator. */
const INVISIBLE = /[\u00ad\u180e\u200b-\u200d\u2060\ufeff]/u;

export type PageUrlCheck = { url: string } | { problem: string };

export function canonicalPageUrl(raw: string): PageUrlCheck {
	if (/[?#]/.test(raw)) {
		return {
			problem:
				'must not have a query (?) or fragment (#): a browser never asks the site for them as part of the page',
		};
	}
	let path = raw;
	if (path.includes('%')) {
		// Each run of %XX escapes decoded as UTF-8; a % that starts no valid escape is a literal %.
		path = path.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
			try {
				return decodeURIComponent(run);
			} catch {
				return run;
			}
		});
		if (/[?#\s\u0000-\u001f\u007f]/.test(path) || path.startsWith('//')) {
			return { problem: 'encodes characters a page path cannot hold (?, #, spaces, controls, //)' };
		}
	}
	path = path.normalize('NFC');
	if (INVISIBLE.test(path)) {
		return { problem: 'contains invisible characters (a soft hyphen or a zero-width character)' };
	}
	const plain = path.normalize('NFKC');
	if (plain !== path) {
		return {
			problem: `contains compatibility characters (fullwidth letters, the Kelvin sign…): write "${plain}"`,
		};
	}
	if (path.split('/').some((segment) => segment === '.' || segment === '..')) {
		return { problem: 'must not contain . or .. segments' };
	}
	path = path.toLowerCase().normalize('NFC');
	if (path.length > 1) path = path.replace(/\/+$/, '') || '/';
	return { url: path };
}

/** The canonical url, or a 400 naming the field. */
export function pageUrlOrThrow(raw: string, field = 'url'): string {
	const checked = canonicalPageUrl(raw);
	if ('problem' in checked) throw validationFailed([{ field, problem: checked.problem }]);
	return checked.url;
}
