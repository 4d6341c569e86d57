import type { INodeProperties } from 'n8n-workflow';

/** The page key, shared by the page and content operations. */
export const pageUrlField: INodeProperties = {
	displayName: 'Page URL',
	name: 'url',
	type: 'string',
	default: '',
	required: true,
	placeholder: '/about-us',
	description:
		'The page\'s URL: its site path such as "/about-us", unique within the tenant (the page\'s key)',
};
