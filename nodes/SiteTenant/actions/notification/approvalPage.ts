/**
 * The pages an approval link answers with: a confirmation (the link opened: nothing decided yet)
 * and the decision recorded. Plain HTML with no script; every text is escaped.
 */
const ESCAPES: Record<string, string> = {
	'&': '&amp;',
	'<': '&lt;',
	'>': '&gt;',
	'"': '&quot;',
	"'": '&#39;',
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => ESCAPES[char]);

/** No script, no outside resource; the form may post only back to n8n. */
export const APPROVAL_PAGE_CSP =
	"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'";

function page(title: string, body: string): string {
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}button{font-size:1rem;padding:.6rem 1.4rem;cursor:pointer}</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

/** The link opened: asks to confirm with a button that posts back to the same signed URL. */
export function confirmationPage(label: string): string {
	return page(
		`${label}?`,
		`<p>Confirm to send your decision to the workflow that asked.</p><form method="post"><button type="submit">${escapeHtml(label)}</button></form>`,
	);
}

/** The decision went to the workflow. */
export function decisionPage(approved: boolean): string {
	return approved
		? page('Approved', '<p>Thank you: your approval was recorded, and the workflow goes on.</p>')
		: page('Declined', '<p>Thank you: your decision was recorded. Nothing will be changed.</p>');
}
