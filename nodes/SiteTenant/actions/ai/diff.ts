/** Before/after of the two parts of page content a proposal replaces. */
import type { IDataObject } from 'n8n-workflow';

import { stableStringify } from '../../../shared/json';
import type { Proposal } from './proposal';

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
