/** The reference server against the mock servers a user would otherwise start. Filled in by its own change; see run.ts for where it runs. */
export async function serverPeerRows(): Promise<void> {
	// Not written yet.
}
