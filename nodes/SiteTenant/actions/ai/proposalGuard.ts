/**
 * What AI > Apply Proposal may write, decided here and nowhere else:
 *
 * - The page is the workflow's: the Page parameter, or the page a sealed version was given for (Get
 *   Page Context's, siteVersion.ts). A proposal's own url alone never picks it.
 * - The version the write is checked against came from the site: a sealed version (in Page Version
 *   or in the proposal, as the model copied it), or Page Version as the workflow gives it. A version
 *   only the model wrote does not count.
 * - Require Page Version (on by default) fails a proposal without such a version. Off, a workflow
 *   that truly has none writes without the check (a model's unsealed version is still sent as the
 *   precondition: it can only stop a write).
 *
 * Every failure names what is missing, before anything is sent.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { RequestTarget } from '../../../shared/target';
import { isSealed, unsealedVersion } from './siteVersion';

const FROM_CONTEXT =
	"Give Page Version the version AI > Get Page Context output (e.g. {{ $('Get Page Context').item.json.version }}), or let the model's answer carry that version unchanged, as the context's prompt asks.";

function fail(
	ctx: IExecuteFunctions,
	itemIndex: number,
	message: string,
	description: string,
): never {
	throw new NodeOperationError(ctx.getNode(), `${message} Nothing was written.`, {
		itemIndex,
		description,
	});
}

/** The updated_at a sealed version holds for `url`; fails the item when its seal is not for it. */
function opened(
	ctx: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
	url: string,
	version: string,
	where: string,
): string {
	const updatedAt = unsealedVersion(target, url, version);
	if (updatedAt !== undefined) return updatedAt;
	return fail(
		ctx,
		itemIndex,
		`${where} was not given for ${url} by AI > Get Page Context with this credential.`,
		`The proposal is for ${url}; its version was read for another page, with another credential, or changed. Read ${url} with Get Page Context and propose again.`,
	);
}

/**
 * The page version to write against (undefined: no check, Require Page Version off), once the page
 * is known to be the workflow's. `pageNamed`: the Page parameter gave the proposal's url.
 */
export function guardedVersion(
	ctx: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
	proposal: { url: string; version?: string },
	pageNamed: boolean,
): string | undefined {
	const given = String(ctx.getNodeParameter('pageVersion', itemIndex, '') ?? '').trim();
	if (given !== '' && isSealed(given)) {
		return opened(ctx, itemIndex, target, proposal.url, given, 'Page Version');
	}
	const fromModel = proposal.version ?? '';
	if (given === '' && isSealed(fromModel)) {
		return opened(ctx, itemIndex, target, proposal.url, fromModel, "The proposal's version");
	}
	if (!pageNamed) {
		fail(
			ctx,
			itemIndex,
			`Page is empty, and the proposal's page ${proposal.url} is only the model's word.`,
			`Name the page in Page (e.g. the url Get Page Context read), or let the proposal carry Get Page Context's version, which says which page it was read for. ${FROM_CONTEXT}`,
		);
	}
	if (given !== '') return given;
	if (ctx.getNodeParameter('requireVersion', itemIndex, true) !== false) {
		fail(
			ctx,
			itemIndex,
			fromModel === ''
				? 'The proposal has no page version from the site, and Require Page Version is on.'
				: "The proposal's version did not come from the site (AI > Get Page Context), and Require Page Version is on.",
			`${FROM_CONTEXT} A workflow that truly has no version can turn Require Page Version off: the page is then written whatever changed since.`,
		);
	}
	return fromModel === '' ? undefined : fromModel;
}
