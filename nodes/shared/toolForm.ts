/**
 * What the editor shows when a node is an AI agent's tool (n8n's `@tool` display condition: the
 * node's tool form, e.g. "Site Management Admin Tool"), and the check a run makes for it.
 */
import type { INode, INodeProperties } from 'n8n-workflow';

/** Shown only in the node's tool form, or only outside it. */
export const inToolForm = { '@tool': [true] };
export const outsideToolForm = { '@tool': [false] };

/** Whether the node runs as an AI agent's tool (its tool form's type name ends in "Tool"). */
export function isToolForm(node: INode): boolean {
	return node.type.endsWith('Tool');
}

/** A notice in the tool form of a destructive operation: the model decides what it acts on. */
export function destructiveToolNotice(
	resource: string,
	operation: string,
	what: string,
): INodeProperties {
	return {
		displayName: `As a tool, this lets the model ${what}: whichever one it names. Give the agent this tool only if that is intended.`,
		name: `${resource}${operation[0].toUpperCase()}${operation.slice(1)}ToolNotice`,
		type: 'notice',
		default: '',
		displayOptions: { show: { ...inToolForm, resource: [resource], operation: [operation] } },
	};
}
