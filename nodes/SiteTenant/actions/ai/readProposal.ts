/**
 * Gets the raw proposal of an item (from an input field or from the JSON parameter) and turns it
 * into a validated `{url, templates, banner?}`; any problem fails the item with a NodeOperationError
 * that says what is wrong and where the proposal was read (the input field, or the parameter), before
 * anything is sent.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isToolForm } from '../../../shared/toolForm';
import type { ParsedProposal } from './proposal';
import { getByPath, parseProposal, ProposalError } from './proposal';

type ProposalSource = 'field' | 'json';

/**
 * The default Proposal Field: the field n8n's AI nodes answer in, whichever the item has
 * (Basic LLM Chain `text`, AI Agent and OpenAI node `output`, OpenAI node v1 `message`, a raw chat
 * completion `choices`), else `proposal`.
 */
export const AI_OUTPUT_FIELD =
	"={{ $json.text !== undefined ? 'text' : $json.output !== undefined ? 'output' : $json.message !== undefined ? 'message.content' : $json.choices !== undefined ? 'choices[0].message.content' : 'proposal' }}";

interface RawProposal {
	value: unknown;
	/** Where it was read, for error messages: `the input field "text"`. */
	source: string;
}

function rawFromField(ctx: IExecuteFunctions, itemIndex: number): RawProposal {
	const field = String(ctx.getNodeParameter('proposalField', itemIndex, 'proposal') ?? '').trim();
	const json = ctx.getInputData()[itemIndex]?.json ?? {};
	if (field === '') return { value: json, source: 'the whole input item' };
	// A key that itself contains dots wins over the path it spells.
	const value = Object.prototype.hasOwnProperty.call(json, field)
		? json[field]
		: getByPath(json, field);
	if (value === undefined) {
		throw new NodeOperationError(ctx.getNode(), `The input item has no field "${field}"`, {
			itemIndex,
			description:
				'Set "Proposal Field" to the field holding the proposal (dot paths such as message.content or choices[0].message.content work; leave it empty to use the whole item), or use "Proposal Source: JSON Parameter"',
		});
	}
	return { value, source: `the input field "${field}"` };
}

export function readProposal(
	ctx: IExecuteFunctions,
	itemIndex: number,
	urlOverride: string,
): ParsedProposal {
	const source = ctx.getNodeParameter('proposalSource', itemIndex, 'field') as ProposalSource;
	const raw: RawProposal =
		source === 'json'
			? {
					value: ctx.getNodeParameter('proposalJson', itemIndex, '') as string | IDataObject,
					// A model never sees the editor's field names: its own argument is "the proposal".
					source: isToolForm(ctx.getNode()) ? 'the proposal' : 'the parameter "Proposal JSON"',
				}
			: rawFromField(ctx, itemIndex);
	try {
		return parseProposal(raw.value, { url: urlOverride || undefined });
	} catch (error) {
		if (!(error instanceof ProposalError)) {
			throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
		}
		throw new NodeOperationError(
			ctx.getNode(),
			`No usable proposal in ${raw.source}: ${error.message}`,
			{
				itemIndex,
				description:
					'A proposal is a JSON object {"url": "/page-path", "templates": [{...}, ...], "banner": {...} or null}, given as an object, a JSON string, JSON in a ```json code block, or a chat-completion response containing one of those. Nothing was sent.',
			},
		);
	}
}
