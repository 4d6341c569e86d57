/**
 * The "Options" collection both nodes show under every operation. The router reads `concurrency` and
 * `batching`, the transport reads `timeout` and `maxRetries`.
 */
import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './window';

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
				'Group items for rate limits: a group starts once the one before is done and the interval has passed (at most Concurrency requests at once within a group). Output order stays the input order.',
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
							description: 'How many items form one group',
						},
						{
							displayName: 'Batch Interval (Milliseconds)',
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
			displayName: 'Concurrency',
			name: 'concurrency',
			type: 'number',
			typeOptions: {
				minValue: 1,
				maxValue: MAX_CONCURRENCY,
			},
			default: DEFAULT_CONCURRENCY,
			description:
				'How many requests may be in flight at once; the next item starts as soon as one is answered. Output order stays the input order. 1 sends one item after the other.',
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
