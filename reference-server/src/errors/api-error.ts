/**
 * The one error type routes, plugins and services throw. The error-handler plugin (plugins/errors.ts)
 * turns it into the contract's `{error, message, details?}` body.
 */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly details?: unknown,
	) {
		super(message);
		this.name = 'ApiError';
	}
}

/** One bad field of a validation_failed answer. */
export interface FieldProblem {
	field: string;
	problem: string;
}

export const invalidJson = (message: string) => new ApiError(400, 'invalid_json', message);
export const unauthorized = (message: string) => new ApiError(401, 'unauthorized', message);
export const forbidden = (message: string) => new ApiError(403, 'forbidden', message);
export const notFound = (message: string) => new ApiError(404, 'not_found', message);
export const conflict = (message: string) => new ApiError(409, 'conflict', message);
export const payloadTooLarge = (message: string) => new ApiError(413, 'payload_too_large', message);
export const quotaExceeded = (message: string) => new ApiError(413, 'quota_exceeded', message);
export const unsupportedMediaType = (message: string) =>
	new ApiError(415, 'unsupported_media_type', message);

/** 400 validation_failed: the bad fields by name in the message, each with its problem in details. */
export function validationFailed(details: FieldProblem[]): ApiError {
	const fields = details.map((d) => d.field);
	const message =
		fields.length === 1
			? `The field ${fields[0]} is invalid.`
			: `These fields are invalid: ${fields.join(', ')}.`;
	return new ApiError(400, 'validation_failed', message, details);
}
