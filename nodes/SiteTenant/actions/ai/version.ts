import type { IExecuteFunctions } from 'n8n-workflow';

import { isVersionAtLeast, RECORD_OUTPUT_VERSION } from '../../../shared/version';

/**
 * From version 3 the AI resource is built around n8n's AI nodes: Apply Proposal reads their output
 * fields by default and its dry run passes the input through; Get Page Context hands out a whole prompt.
 */
export function aiNodesVersion(ctx: IExecuteFunctions): boolean {
	return isVersionAtLeast(ctx, RECORD_OUTPUT_VERSION);
}

/**
 * The node runs as an AI agent's tool (the `…Tool` form n8n derives from `usableAsTool`): its output
 * goes to a model, so version 3 keeps it to what a model needs.
 */
export function runsAsTool(ctx: IExecuteFunctions): boolean {
	return aiNodesVersion(ctx) && ctx.getNode().type.endsWith('Tool');
}
