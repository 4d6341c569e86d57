/** Before/after of the two parts of page content a proposal replaces. */
import type { IDataObject } from 'n8n-workflow';

import type { Proposal } from './proposal';

/** JSON text with object keys sorted, so key order does not count as a change. */
export function stableStringify(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const record = value as Record<string, unknown>;
		const entries = Object.keys(record)
			.filter((key) => record[key] !== undefined)
			.sort()
			.map((key) => `${JSON.stringify(key)}:${stableStringify(record[key])}`);
		return `{${entries.join(',')}}`;
	}
	return JSON.stringify(value ?? null);
}

export function contentChanges(page: IDataObject, proposal: Proposal): IDataObject {
	const templatesBefore = Array.isArray(page.templates) ? page.templates : [];
	const bannerBefore = page.banner ?? null;
	// A proposal without a banner leaves the banner as it is.
	const bannerAfter = proposal.banner === undefined ? bannerBefore : proposal.banner;
	return {
		templates: {
			before: templatesBefore,
			after: proposal.templates,
			changed: stableStringify(templatesBefore) !== stableStringify(proposal.templates),
		},
		banner: {
			before: bannerBefore,
			after: bannerAfter,
			changed: stableStringify(bannerBefore) !== stableStringify(bannerAfter),
		},
	} as IDataObject;
}
