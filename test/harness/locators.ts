/**
 * Resource locator values as the editor saves them: the Page parameter (`url`, From List or By URL)
 * and the Variable parameter (`key`, From List or By Key). A value may be an expression.
 */
import type { INodeParameterResourceLocator } from 'n8n-workflow';

const locator = (mode: string, value: string): INodeParameterResourceLocator => ({
	__rl: true,
	mode,
	value,
});

/** From List: a page's url or a variable's key, as the list gives it. */
export const byList = (value: string) => locator('list', value);
/** Page, By URL: a site path or a full address on the site. */
export const byUrl = (value: string) => locator('url', value);
/** Variable, By Key. */
export const byKey = (value: string) => locator('key', value);
