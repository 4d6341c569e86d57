/** How cost grows with size. Filled in by its own change; see run.ts for where it runs. */
export async function growthRows(): Promise<void> {
	// Not written yet.
}
