/**
 * Webhook-description fields that n8n 2.x resolves without its expression engine. A field such as
 * `responseMode: '={{$parameter["options"]["acknowledge"] ...}}'` is an expression n8n evaluates on
 * every request; with n8n's default engine (`vm`) each evaluation runs in a V8 isolate. n8n's own
 * Webhook node declares a plain function beside each such template (n8n-workflow's
 * `webhookDescriptionFields`), and n8n calls that function instead whenever the node's parameters
 * hold no expression. This is the same declaration, made here because n8n 1.x has no such helper.
 * n8n 1.x, and any node whose parameters hold an expression, still evaluate the template.
 */
import type { INodeParameters, IWebhookDescription } from 'n8n-workflow';

/** n8n-workflow's WEBHOOK_RESOLVERS: a registry symbol, so the very key n8n reads (1.x ignores it). */
const WEBHOOK_RESOLVERS = Symbol.for('n8n.webhookDescriptionResolvers');

/** A description field: the template the editor and n8n 1.x evaluate, and the same rule as code. */
export interface NativeWebhookField {
	template: string;
	/** Must give what the template gives for parameters without expressions (tested for each field). */
	resolve: (parameters: INodeParameters) => unknown;
}

/** The description with each field's template in place and the resolvers where n8n 2.x looks. */
export function withNativeFields(
	description: IWebhookDescription,
	fields: Record<string, NativeWebhookField>,
): IWebhookDescription {
	const result: IWebhookDescription = { ...description };
	for (const [name, field] of Object.entries(fields)) result[name] = field.template;
	// Not enumerable: the description is sent to the editor as JSON, which has no use for it.
	Object.defineProperty(result, WEBHOOK_RESOLVERS, { value: fields, enumerable: false });
	return result;
}
