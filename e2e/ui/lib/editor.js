'use strict';
/**
 * What the browser test does in n8n's editor, as a person would. Selectors are the `data-test-id`s
 * n8n's own Playwright tests use (n8n-io/n8n packages/testing/playwright: pages/SignInPage.ts,
 * CredentialsPage.ts, components/CredentialModal.ts, components/NodeCreator.ts, NodeDetailsViewPage.ts,
 * CanvasPage.ts).
 */
async function signIn(page, baseUrl, { email, password }) {
	await page.goto(`${baseUrl}/signin`);
	await page.getByTestId('emailOrLdapLoginId').locator('input').fill(email);
	await page.getByTestId('password').locator('input').fill(password);
	await page.getByTestId('form-submit-button').click();
	await page.waitForURL(/\/(home|workflow)/, { timeout: 60000 });
}

/** Opens the credential dialog for a new credential of the given type (its display name). */
async function openNewCredential(page, baseUrl, typeName) {
	await page.goto(`${baseUrl}/home/credentials`);
	await page.getByRole('button', { name: 'Create credential' }).first().click();
	await page.getByRole('combobox', { name: 'Search for app...' }).fill(typeName);
	await page
		.getByTestId('new-credential-type-select-option')
		.filter({ hasText: typeName })
		.first()
		.click();
	await page.getByTestId('new-credential-type-button').click();
	await page.getByTestId('parameter-input-baseUrl').waitFor();
}

async function fillCredentialField(page, name, value) {
	const field = page.getByTestId(`parameter-input-${name}`).locator('input, textarea').first();
	await field.fill(value);
}

/** Opens the node panel, searches it for `search` and picks the item `node`; resolves to its items. */
async function pickFromNodePanel(page, { search, node }) {
	await page
		.getByTestId('canvas-add-button')
		.or(page.getByTestId('node-creator-plus-button'))
		.first()
		.click();
	await page.getByTestId('node-creator-search-bar').fill(search);
	const items = page.getByTestId('node-creator').getByTestId('item-iterator-item');
	await items.filter({ hasText: node }).first().click();
	return items;
}

/** A new workflow with the node panel searched for `search`, the node chosen and one of its actions picked. */
async function addNodeAction(page, { search, node, action }) {
	const items = await pickFromNodePanel(page, { search, node });
	await items.filter({ hasText: action }).first().click();
	await page.getByTestId('ndv').waitFor();
}

/** The item list of the resource locator parameter `name`, opened and searched. */
async function searchResourceLocator(page, name, search) {
	const locator = page.getByTestId(`resource-locator-${name}`);
	await locator.getByTestId('rlc-input').click();
	const items = locator.getByTestId('rlc-item');
	await items.first().waitFor();
	const before = await items.count();
	await locator.getByPlaceholder('Search...').fill(search);
	return { locator, items, before };
}

/** Adds a trigger node (one with no action list) from the node panel and opens it. */
async function addTrigger(page, { search, node }) {
	await pickFromNodePanel(page, { search, node });
	const add = page.getByRole('button', { name: 'Add to workflow' });
	if (await add.isVisible().catch(() => false)) await add.click();
	await page.getByTestId('ndv').waitFor();
}

/** Types into the parameter `name` of the open node. */
async function fillParameter(page, name, value) {
	const input = page.getByTestId(`parameter-input-${name}`).locator('input, textarea').first();
	await input.click();
	await input.fill(value);
	await input.blur();
}

/** Picks an option of the options parameter `name` of the open node. */
async function chooseOption(page, name, option) {
	await page.getByTestId(`parameter-input-${name}`).click();
	// An option's accessible name is its name followed by its description.
	await page
		.getByRole('option', { name: new RegExp(`^${option}`) })
		.filter({ visible: true })
		.first()
		.click();
}

/** Chooses the credential with this id in the open node's credential select. */
async function chooseCredential(page, id) {
	await page.getByTestId('node-credentials-select').click();
	await page.getByTestId(`node-credentials-select-item-${id}`).click();
}

module.exports = {
	chooseCredential,
	signIn,
	openNewCredential,
	fillCredentialField,
	addNodeAction,
	addTrigger,
	searchResourceLocator,
	fillParameter,
	chooseOption,
};
