import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound, unsupportedMediaType } from '../errors/api-error';
import { AssetUploads } from '../storage/asset-upload';
import { tenantOf } from '../context';
import { downloadParams, downloadResponses, uploadResponses } from '../schemas/assets';

const assetRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const { store, assets, config } = app.site;
	const uploads = new AssetUploads(assets, store.assets, {
		maxUploadMb: config.maxUploadMb,
		quotaMb: config.uploadQuotaMb,
		tenantExists: (pk) => store.tenants.findByPk(pk) !== undefined,
	});

	app.post(
		'/api/asset',
		{
			onRequest: app.requireTenant,
			config: { multipart: true },
			schema: {
				operationId: 'uploadAsset',
				summary: 'Upload a media asset (multipart: part file, optional text part name)',
				response: uploadResponses,
			},
		},
		async (request, reply) => {
			if (!request.isMultipart()) {
				throw unsupportedMediaType(
					'Upload the file as multipart/form-data with a part named file.',
				);
			}
			const asset = await uploads.receive(tenantOf(request).pk, request);
			const url = `${app.site.publicUrl}/assets/${asset.id}/${asset.file_name}`;
			return reply
				.code(201)
				.send({ url, name: asset.name, size: asset.size, mime_type: asset.mime_type });
		},
	);

	app.get(
		'/assets/:assetId/:fileName',
		{
			schema: {
				operationId: 'downloadAsset',
				summary: 'Download an asset (no token; the unguessable id is the capability)',
				description:
					'The id decides; the file name segment is cosmetic. Asset URLs survive a tenant rename.',
				'x-extension': true,
				params: downloadParams,
				response: downloadResponses,
			},
		},
		async (request, reply) => {
			const { assetId } = request.params;
			const asset = /^[a-f0-9]{32}$/.test(assetId) ? store.assets.findById(assetId) : undefined;
			const file = asset ? await assets.open(asset.tenant_pk, asset.id) : undefined;
			if (!asset || !file) throw notFound('Asset not found.');
			return (
				reply
					.header('content-type', asset.mime_type)
					.header('content-length', file.size)
					.header('x-content-type-options', 'nosniff')
					// Uploaded HTML or SVG must not run scripts in this origin when opened directly.
					.header(
						'content-security-policy',
						"default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; sandbox",
					)
					.header('cache-control', 'public, max-age=3600')
					.send(file.stream)
			);
		},
	);
};

export default assetRoutes;
