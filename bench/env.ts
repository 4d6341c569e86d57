/**
 * n8n-core reads its settings from the environment when it is first loaded and writes a config file
 * into its user folder (the same as test/harness/setup-env.ts does for jest). Import this module before
 * anything that loads n8n-core.
 */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

// BENCH_N8N_USER_FOLDER: a folder the parent made and removes (a child stopped with SIGTERM runs no
// 'exit' handler, and the uploader's binary store holds the whole file).
const given = process.env.BENCH_N8N_USER_FOLDER;
export const n8nUserFolder = given ?? mkdtempSync(join(tmpdir(), 'n8n-bench-user-'));
process.env.N8N_USER_FOLDER = n8nUserFolder;
process.env.N8N_ENCRYPTION_KEY ??= 'bench-encryption-key';
process.env.N8N_BINARY_DATA_STORAGE_PATH = join(n8nUserFolder, 'binary-data');
process.env.N8N_DIAGNOSTICS_ENABLED = 'false';
process.env.N8N_LOG_LEVEL ??= 'silent';

if (given === undefined)
	process.on('exit', () => rmSync(n8nUserFolder, { recursive: true, force: true }));
