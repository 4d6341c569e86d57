/**
 * The "Options" collection both nodes show under every operation. The router reads `batching`, the
 * transport reads `timeout` and `maxRetries`.
 */
import type { INodeProperties } from 'n8n-workflow';

export const requestOptionsDescription: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add option',
	default: {},
	options: [
		{
			displayName: 'Batching',
			name: 'batching',
			placeholder: 'Add Batching',
			type: 'fixedCollection',
			typeOptions: {
				multipleValues: false,
			},
			default: {
				batch: {},
			},
			description:
				'Run items in batches: the items of one batch are sent concurrently, with a pause between batches. Output order stays the input order.',
			options: [
				{
					displayName: 'Batching',
					name: 'batch',
					values: [
						{
							displayName: 'Items per Batch',
							name: 'batchSize',
							type: 'number',
							typeOptions: {
								minValue: 1,
							},
							default: 1,
							description: 'How many items are sent at the same time',
						},
						{
							displayName: 'Batch Interval (Ms)',
							name: 'batchInterval',
							type: 'number',
							typeOptions: {
								minValue: 0,
							},
							default: 0,
							description: 'Milliseconds to wait between batches',
						},
					],
				},
			],
		},
		{
			displayName: 'Max Retries',
			name: 'maxRetries',
			type: 'number',
			typeOptions: {
				minValue: 0,
				maxValue: 10,
			},
			default: 5,
			description:
				'How often a request is sent again after a 429, a 5xx or no answer at all (with backoff, honouring Retry-After). Raise it for an unreliable connection.',
		},
		{
			displayName: 'Timeout',
			name: 'timeout',
			type: 'number',
			typeOptions: {
				minValue: 1,
			},
			default: 30000,
			description:
				'Milliseconds to wait for the service to answer one request before it is treated as failed (and retried)',
		},
	],
};
