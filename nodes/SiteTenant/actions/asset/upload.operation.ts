/**
 * Asset > Upload: `POST /api/asset`, multipart with the part `file` and the optional text part
 * `name`. Outputs the server's record `{url, name, size, mime_type}`; the input binary is not copied.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { randomUUID } from 'crypto';

import { buildMultipartEnvelope, isValidMimeType } from '../../../shared/multipart';
import { tenantApiRequest, tenantCredentialType } from '../../../shared/tenantRequest';
import { createUploadBody } from './binaryBody';

const properties: INodeProperties[] = [
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the input binary field containing the file to be uploaded',
		description:
			'Name of the binary property of the input item that holds the file to upload, e.g. "data"',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'File Name',
				name: 'fileName',
				type: 'string',
				default: '',
				description:
					'File name to send instead of the one stored with the binary data, e.g. "team-photo.jpg"',
			},
			{
				displayName: 'MIME Type',
				name: 'mimeType',
				type: 'string',
				default: '',
				placeholder: 'image/jpeg',
				description: 'MIME type to send instead of the one stored with the binary data',
			},
			{
				displayName: 'Name',
				name: 'name',
				type: 'string',
				default: '',
				description:
					'A name the service stores with the asset (sent as the form field "name"). By default the service uses the file name.',
			},
		],
	},
];

const displayOptions = {
	show: {
		resource: ['asset'],
		operation: ['upload'],
	},
};

export const description = updateDisplayOptions(displayOptions, properties);

function isUnauthorized(error: unknown): boolean {
	return error instanceof NodeApiError && String(error.httpCode) === '401';
}

function fallbackFileName(extension: string | undefined): string {
	return extension ? `file.${extension.replace(/^\.+/, '')}` : 'file';
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const binaryPropertyName = String(
		this.getNodeParameter('binaryPropertyName', itemIndex, 'data') ?? '',
	).trim();
	if (!binaryPropertyName) {
		throw new NodeOperationError(this.getNode(), 'The parameter "Input Binary Field" must not be empty', {
			itemIndex,
		});
	}
	const additionalFields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const binaryData = this.helpers.assertBinaryData(itemIndex, binaryPropertyName);

	const fileName =
		String(additionalFields.fileName ?? '').trim() ||
		binaryData.fileName ||
		fallbackFileName(binaryData.fileExtension);
	const mimeTypeOverride = String(additionalFields.mimeType ?? '').trim();
	if (mimeTypeOverride && !isValidMimeType(mimeTypeOverride)) {
		throw new NodeOperationError(
			this.getNode(),
			`The parameter "MIME Type" must be a MIME type such as image/jpeg, got "${mimeTypeOverride}"`,
			{ itemIndex },
		);
	}
	const storedMimeType = (binaryData.mimeType ?? '').trim();
	const mimeType =
		mimeTypeOverride || (isValidMimeType(storedMimeType) ? storedMimeType : 'application/octet-stream');
	const name = String(additionalFields.name ?? '').trim();

	const envelope = buildMultipartEnvelope(name ? [{ name: 'name', value: name }] : [], {
		fieldName: 'file',
		fileName,
		contentType: mimeType,
	});
	const upload = await createUploadBody(this, itemIndex, binaryData, envelope);

	const headers: IDataObject = { 'Content-Type': envelope.contentType };
	if (upload.contentLength !== undefined) headers['Content-Length'] = String(upload.contentLength);
	// One key for every attempt of this item, including the one after a token refresh.
	const idempotencyKey = randomUUID();
	const send = async () =>
		await tenantApiRequest.call(
			this,
			{ method: 'POST', path: '/api/asset', createBody: upload.createBody, headers },
			{ itemIndex, idempotencyKey },
		);

	let response: unknown;
	try {
		response = await send();
	} catch (error) {
		// n8n refreshes the managed credential's token on a 401 but does not resend a stream body
		// (it was consumed): it surfaces the 401. The credential now holds a fresh token, so send a
		// fresh body once more. Buffer bodies are resent by n8n itself and never get here with 401.
		const managed = tenantCredentialType(this, itemIndex) === 'siteManagedTenantApi';
		if (!(upload.streamed && managed && isUnauthorized(error))) {
			// Re-wrapping a NodeApiError (what the transport throws) or a NodeOperationError hands
			// back the original error unchanged.
			if (error instanceof NodeApiError) {
				throw new NodeApiError(this.getNode(), error as unknown as JsonObject);
			}
			throw new NodeOperationError(this.getNode(), error as Error, { itemIndex });
		}
		response = await send();
	}

	if (response !== null && typeof response === 'object' && !Array.isArray(response)) {
		return response as IDataObject;
	}
	return { response: (response ?? null) as IDataObject };
}
