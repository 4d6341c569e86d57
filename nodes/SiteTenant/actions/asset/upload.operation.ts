/**
 * Asset > Upload: `POST /api/asset`, multipart with the part `file` and the optional text part
 * `name`. Outputs the server's record `{url, name, size, mime_type}`; the input binary is not copied.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { objectOr } from '../../../shared/json';
import type { RequestTarget } from '../../../shared/transport';
import { siteRequest } from '../../../shared/transport';
import { createUploadBody } from './binaryBody';
import { buildMultipartEnvelope, isValidMimeType } from './multipart';

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

function fallbackFileName(extension: string | undefined): string {
	return extension ? `file.${extension.replace(/^\.+/, '')}` : 'file';
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject> {
	const binaryPropertyName = String(
		this.getNodeParameter('binaryPropertyName', itemIndex, 'data') ?? '',
	).trim();
	if (!binaryPropertyName) {
		throw new NodeOperationError(
			this.getNode(),
			'The parameter "Input Binary Field" must not be empty',
			{
				itemIndex,
			},
		);
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
		mimeTypeOverride ||
		(isValidMimeType(storedMimeType) ? storedMimeType : 'application/octet-stream');
	const name = String(additionalFields.name ?? '').trim();
	// The form field's name in a constant: n8n's scanner takes a literal {name, value} pair for a
	// parameter option and would have it title-cased ('Name'), which the service would not read.
	const NAME_FIELD = 'name';

	const envelope = buildMultipartEnvelope(name ? [{ name: NAME_FIELD, value: name }] : [], {
		fieldName: 'file',
		fileName,
		contentType: mimeType,
	});
	const upload = await createUploadBody(this, itemIndex, binaryData, envelope);
	const headers: IDataObject = { 'Content-Type': envelope.contentType };
	if (upload.contentLength !== undefined) headers['Content-Length'] = String(upload.contentLength);
	// `createBody` opens a fresh stream for every attempt: retries after 429/5xx/network failures and
	// the transport's one resend with a fresh managed token never reuse a consumed stream.
	let response: unknown;
	try {
		response = await siteRequest.call(
			this,
			{ method: 'POST', path: '/api/asset', createBody: upload.createBody, headers },
			{ itemIndex, target },
		);
	} finally {
		upload.dispose();
	}

	return objectOr(response, { response: (response ?? null) as IDataObject });
}
