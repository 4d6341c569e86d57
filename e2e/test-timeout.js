// The per-test limit of this file's suite (e2e/jest.config.js: `globals.E2E_TEST_TIMEOUT`).
jest.setTimeout(globalThis.E2E_TEST_TIMEOUT);
