/**
 * `PUT /api/content` only while the page is at the version the caller read (its `updated_at`), for
 * AI > Apply Proposal and Content > Update. The page is read and compared first (a changed page fails
 * the item saying what changed, nothing sent); the update then carries `if_updated_at`, the reference
 * server's precondition, so an edit between that read and the write is refused too (412). A service
 * that refuses the field (400 naming it) gets the update without it: read-compare-write, whose window
 * is the time between the read and the write (docs/ai.md).
 */
import type { IDataObject, IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { isRecord } from '../../shared/json';
import type { SiteItem } from '../../shared/transport';
import { siteRequest } from '../../shared/transport';
import { readPageByUrl } from '../../shared/pages';

const PRECONDITION_FIELD = 'if_updated_at';

/** The failure of an item whose page changed since the version it was made from. Nothing was written. */
function pageChangedError(
	ctx: IExecuteFunctions,
	url: string,
	version: string,
	current: unknown,
	itemIndex: number,
	madeFrom = 'the proposal was made',
): NodeOperationError {
	const now = typeof current === 'string' && current !== '' ? current : 'unknown';
	return new NodeOperationError(
		ctx.getNode(),
		`The page changed since ${madeFrom}: ${url} was last updated at ${now}, not at ${version}. Nothing was written.`,
		{
			itemIndex,
			description: `Someone (or another workflow) edited the page after it was read: its updated_at went from ${version} to ${now}. Read the page again (AI > Get Page Context) and make a new proposal from it, so the newer edit is not overwritten.`,
		},
	);
}

function apiErrorOf(ctx: IExecuteFunctions, error: unknown): NodeApiError {
	return error instanceof NodeApiError
		? error
		: new NodeApiError(ctx.getNode(), error as JsonObject);
}

/** A 400 that names the precondition field: a service without the extension. */
function refusesPrecondition(error: NodeApiError): boolean {
	if (error.httpCode !== '400') return false;
	const details = error.context.details as unknown;
	const fields = Array.isArray(details)
		? details.map((entry) => (isRecord(entry) ? entry.field : undefined))
		: isRecord(details)
			? Object.keys(details)
			: [];
	return fields.includes(PRECONDITION_FIELD);
}

/** 412 (or a 409 saying so): the precondition did not hold. */
function preconditionFailed(error: NodeApiError): boolean {
	return (
		error.httpCode === '412' ||
		(error.httpCode === '409' && error.context.error === 'precondition_failed')
	);
}

/**
 * Sends `body` (`{url, templates, banner?}`) as a content update if the page at `body.url` still has
 * `updated_at` equal to `version`; otherwise fails the item (pageChangedError) and writes nothing.
 * Returns the service's answer.
 */
export async function putContentIfUnchanged(
	this: IExecuteFunctions,
	body: IDataObject,
	version: string,
	item: SiteItem,
	madeFrom?: string,
): Promise<unknown> {
	const { itemIndex } = item;
	const url = String(body.url);
	const page = await readPageByUrl.call(this, url, item);
	if (page.updated_at !== version)
		throw pageChangedError(this, url, version, page.updated_at, itemIndex, madeFrom);
	const send = async (sent: IDataObject) =>
		await siteRequest.call(this, { method: 'PUT', path: '/api/content', body: sent }, item);
	try {
		return await send({ ...body, [PRECONDITION_FIELD]: version });
	} catch (error) {
		const apiError = apiErrorOf(this, error);
		if (preconditionFailed(apiError)) {
			const details = apiError.context.details as unknown;
			const current = isRecord(details) ? details.updated_at : undefined;
			throw pageChangedError(this, url, version, current, itemIndex, madeFrom);
		}
		if (!refusesPrecondition(apiError)) throw apiError;
	}
	// The service has no precondition: the read above was the check.
	return await send(body);
}
