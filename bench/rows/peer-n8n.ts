/** Real n8n: the Tenant node against n8n's HTTP Request node. Filled in by its own change; see run.ts for where it runs. */
export async function peerN8nRows(): Promise<void> {
	// Not written yet.
}
