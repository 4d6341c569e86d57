/**
 * The pages the approval links of Notification > Send and Wait for Approval answer with: a label
 * written by the workflow is text on the page, never markup; the confirmation posts back to the link
 * itself; nothing loads from elsewhere. (The links in a real n8n: e2e/n8n/send-and-wait.e2e.test.js.)
 */
import {
	APPROVAL_PAGE_CSP,
	confirmationPage,
	decisionPage,
} from '../../../../nodes/SiteTenant/actions/notification/approvalPage';

test('a label with markup is shown as text', () => {
	const page = confirmationPage('<img src=x onerror=alert(1)> & "go"');
	expect(page).not.toContain('<img');
	expect(page).toContain('&lt;img src=x onerror=alert(1)&gt; &amp; &quot;go&quot;');
});

test('the confirmation posts to the same signed link, with no action of its own and no script', () => {
	const page = confirmationPage('Approve');
	expect(page).toContain('<form method="post"><button type="submit">Approve</button></form>');
	expect(page).not.toMatch(/action=|<script/i);
	expect(APPROVAL_PAGE_CSP).toContain("default-src 'none'");
	expect(APPROVAL_PAGE_CSP).toContain("form-action 'self'");
});

test('the decision page says what was decided', () => {
	expect(decisionPage(true)).toContain('<h1>Approved</h1>');
	expect(decisionPage(false)).toContain('<h1>Declined</h1>');
	expect(decisionPage(false)).toContain('Nothing will be changed');
});
