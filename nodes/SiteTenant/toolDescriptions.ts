/**
 * What a model reads about each operation of the Tenant node's tool form. n8n's own automatic tool
 * description is the operation's action name ("Update page content in Site Management Tenant"); these
 * say instead whether a call changes the live site (and what it needs first) or only reads (safe).
 * A node that has a `toolDescription` parameter keeps it: n8n then adds none of its own (the "Tool
 * Description: Set Automatically / Manually" pair), so the text below is the default, shown and
 * editable in the tool form, one per operation.
 */
import type { INodeProperties } from 'n8n-workflow';

import { inToolForm } from '../shared/toolForm';

const READ = 'Read-only and safe: it changes nothing on the site.';
const WRITE = 'Changes the live website at once (no draft, no undo).';

/** resource -> operation -> the tool description. */
export const TOOL_DESCRIPTIONS: Record<string, Record<string, string>> = {
	ai: {
		getPageContext: `Reads one page of the website for a content proposal: its fields, content blocks, banner, its version, and a prompt with the JSON schema a proposal must follow. ${READ} Call it before proposing content.`,
		applyProposal: `Replaces the content of a page with a proposal and publishes it. ${WRITE} Needs a proposal made from Get Page Context: {"url", "version", "templates", "banner"}, with the version Get Page Context gave; if the page changed since, nothing is written and the error says so (read it again and make a new proposal).`,
	},
	content: {
		update: `Replaces every content block (templates) of a page, and optionally its banner. ${WRITE} Needs the page's url and the complete list of blocks; give the page's updated_at as read to write only if nobody changed it since.`,
	},
	page: {
		create: `Creates a page (name, url, locale) on the website. ${WRITE} Needs a url not taken by another page.`,
		delete: `Deletes a page of the website (it leaves listings and the sitemap). ${WRITE} Needs the page's url; returns the page as it was.`,
		get: `Reads one page of the website by its url. ${READ}`,
		getAll: `Lists the pages of the website, optionally filtered. ${READ}`,
	},
	asset: {
		upload: `Uploads a file to the website and returns its public url. ${WRITE} Needs a file from the input item.`,
	},
	settings: {
		update: `Changes site settings (analytics code, noindex, statistics, contact-form webhook). ${WRITE} Needs only the settings to change.`,
	},
	sitemap: {
		get: `Reads the sitemap: the published pages of the website. ${READ}`,
	},
	notification: {
		send: `Shows a status message to the site owner in the site editor. It changes no page; the same id again replaces the message.`,
	},
	variable: {
		delete: `Deletes a variable of the website. ${WRITE} Needs the variable's key.`,
		get: `Reads one variable of the website by its key. ${READ}`,
		getAll: `Lists the variables of the website. ${READ}`,
		set: `Creates or replaces a variable of the website. ${WRITE} Needs a key and a value.`,
	},
	customApiCall: {
		call: `Sends any request to the website's API. A GET only reads; any other method may change the live website at once.`,
	},
};

/** One `toolDescription` parameter per operation, shown in the tool form only. */
export const toolDescriptionProperties: INodeProperties[] = Object.entries(
	TOOL_DESCRIPTIONS,
).flatMap(([resource, operations]) =>
	Object.entries(operations).map(([operation, text]) => ({
		displayName: 'Description',
		name: 'toolDescription',
		type: 'string' as const,
		default: text,
		required: true,
		typeOptions: { rows: 3 },
		description:
			'What the model reads about this tool: what it does, whether it changes the live site, and what it needs',
		displayOptions: { show: { ...inToolForm, resource: [resource], operation: [operation] } },
	})),
);
