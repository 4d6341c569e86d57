import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * From version 3 the AI resource is built around n8n's AI nodes: Apply Proposal reads their output
 * fields by default and its dry run passes the input through; Get Page Context hands out a whole prompt.
 */
export function aiNodesVersion(ctx: IExecuteFunctions): boolean {
	return ctx.getNode().typeVersion >= 3;
}
