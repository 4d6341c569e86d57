import type { IExecuteFunctions } from 'n8n-workflow';

import { isToolForm } from '../../../shared/toolForm';

/**
 * The node runs as an AI agent's tool (the `…Tool` form n8n derives from `usableAsTool`): its output
 * goes to a model, so it is kept to what a model needs.
 */
export function runsAsTool(ctx: IExecuteFunctions): boolean {
	return isToolForm(ctx.getNode());
}
