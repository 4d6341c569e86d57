/**
 * The README and the docs link only to files that exist in the repository, and to headings that exist
 * (a moved section must not leave a dead link behind).
 */
import { existsSync, readFileSync } from 'fs';
import { dirname, join, resolve } from 'path';

import { PAGES, ROOT } from './pages';

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
	return heading
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N} _-]/gu, '')
		.replace(/ /g, '-');
}

function anchorsOf(file: string): string[] {
	const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
	return (text.match(/^#{1,6} .+$/gm) ?? []).map((h) => anchorOf(h.replace(/^#+ /, '')));
}

function linksOf(file: string): string[] {
	const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
	return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
		.map((m) => m[1])
		.filter((target) => !/^[a-z]+:/i.test(target));
}

test.each(PAGES)('%s links to files and headings that exist', (page) => {
	const file = join(ROOT, page);
	const dead = linksOf(file).filter((link) => {
		const [target, anchor] = link.split('#');
		const targetFile = target ? resolve(dirname(file), target) : file;
		if (!targetFile.startsWith(ROOT) || !existsSync(targetFile)) return true;
		return (
			anchor !== undefined && targetFile.endsWith('.md') && !anchorsOf(targetFile).includes(anchor)
		);
	});
	expect(dead).toEqual([]);
});
