/**
 * The served OpenAPI document's schemas, compiled with Ajv in the JSON Schema 2020-12 dialect that
 * OpenAPI 3.1 uses: what the document itself allows, independent of the server's own validation.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { type Harness, type Tenant, createTenant, expectOk, useServer } from './index';

export type OpenApiDocument = { paths: Record<string, Record<string, any>> };

/** Validates values against schemas of one document (annotations such as x-problem are ignored). */
export function documentAjv(): Ajv2020 {
	const ajv = new Ajv2020({ strict: false, allErrors: true });
	addFormats(ajv);
	return ajv;
}

/** The JSON request body schema of an operation, or a clear error naming what is missing. */
export function requestBodySchema(doc: OpenApiDocument, method: string, path: string): object {
	const schema =
		doc.paths[path]?.[method.toLowerCase()]?.requestBody?.content?.['application/json']?.schema;
	if (!schema) throw new Error(`${method} ${path} has no application/json request body`);
	return schema;
}

/** The schema of a query parameter of an operation, or a clear error naming what is missing. */
export function queryParameterSchema(
	doc: OpenApiDocument,
	method: string,
	path: string,
	name: string,
): object {
	const parameters: any[] = doc.paths[path]?.[method.toLowerCase()]?.parameters ?? [];
	const schema = parameters.find((p) => p.in === 'query' && p.name === name)?.schema;
	if (!schema) throw new Error(`${method} ${path} has no query parameter ${name}`);
	return schema;
}

export interface DocumentServer {
	h: Harness;
	tenant: Tenant;
	/** The document the server serves at GET /openapi.json. */
	doc: OpenApiDocument;
}

/** One server for the test file, a tenant on it, and the document it serves (filled in beforeAll). */
export function useDocumentServer(): DocumentServer {
	const context = {} as DocumentServer;
	useServer((started) => (context.h = started));
	beforeAll(async () => {
		context.tenant = await createTenant(context.h);
		context.doc = expectOk(await context.h.anon.get('/openapi.json'));
	});
	return context;
}
