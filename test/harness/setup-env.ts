// n8n-core reads its settings from the environment when first loaded and writes a config file into
// the user folder: give every test file its own temporary folder, before the test imports n8n-core.
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { setSafeRegexEngine } from 'n8n-workflow';

import { patientRegexEngine } from './regex-engine';

const userFolder = mkdtempSync(join(tmpdir(), 'n8n-test-user-'));
process.env.N8N_USER_FOLDER = userFolder;
process.env.N8N_ENCRYPTION_KEY ??= 'test-encryption-key';
process.env.N8N_BINARY_DATA_STORAGE_PATH = join(userFolder, 'binary-data');
process.env.N8N_DIAGNOSTICS_ENABLED = 'false';
process.env.N8N_LOG_LEVEL ??= 'silent';

afterAll(() => rmSync(userFolder, { recursive: true, force: true }));

// n8n's regex engine, with room for a busy machine (regex-engine.ts).
setSafeRegexEngine(patientRegexEngine());
