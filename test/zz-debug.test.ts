import { SiteTenantApi } from '../credentials/SiteTenantApi.credentials';
import { credentialProbe } from './helpers/credential-tester';
import { useNodeTestContext } from './helpers/nodes';
const t = new SiteTenantApi();
const ctx = useNodeTestContext({}, { [`probe-${t.name}`]: credentialProbe(t) });
test('dbg', async () => {
	for (const token of ['stt_wrong', ctx.site.adminToken]) {
		const c = ctx.runner.credentials.add('siteTenantApi', { baseUrl: ctx.site.url, token });
		const r = await ctx.runner.runNode({ type: 'probe-siteTenantApi', parameters: {}, credentials: c });
		const e: any = r.error;
		console.log(Object.getOwnPropertyNames(e), typeof e.cause, e.cause && Object.getOwnPropertyNames(e.cause), e.cause?.response && Object.keys(e.cause.response), e.errorResponse && Object.getOwnPropertyNames(e.errorResponse), e.errorResponse?.response?.status, e.errorResponse?.status);
	}
});
