import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentials,
	ICredentialsExpressionResolveValues,
	IExecuteData,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	IRequestOptionsSimplified,
	Workflow,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { ICredentialsHelper, isExpression } from 'n8n-workflow';

interface StoredCredential {
	id: string;
	name: string;
	type: string;
	data: ICredentialDataDecryptedObject;
}

/**
 * An in-memory stand-in for the n8n server's CredentialsHelper: it applies a credential type's
 * `authenticate` (function or generic expression form) and runs its `preAuthentication` when the
 * expirable field is empty or the last request answered 401, persisting what it returns, the way
 * packages/cli does. Tokens stay here and never enter a workflow.
 */
export class TestCredentialsHelper extends ICredentialsHelper {
	private readonly types = new Map<string, ICredentialType>();
	private readonly store = new Map<string, StoredCredential>();
	/** How often each credential's preAuthentication ran (minted a token), by credential id. */
	readonly preAuthenticationCalls = new Map<string, number>();
	/** How often each credential was read (decrypted), by credential id: each read costs n8n a database query. */
	readonly reads = new Map<string, number>();
	private nextId = 1;
	/**
	 * Models n8n's database (0: none): every read of a credential and every store of a minted token
	 * waits its turn and takes this long, as n8n's queries do. n8n reads the credential for each
	 * request and stores what preAuthentication returned only after it returned, so requests in
	 * flight read the credential before the first mint is stored.
	 */
	databaseLatencyMs = 0;
	private database: Promise<void> = Promise.resolve();

	constructor(credentialTypes: ICredentialType[]) {
		super();
		for (const type of credentialTypes) this.types.set(type.name, type);
	}

	/** Stores credential data and returns the reference a node's `credentials` field takes. */
	add(type: string, data: ICredentialDataDecryptedObject, name = `${type} ${this.nextId}`) {
		this.getType(type);
		const id = String(this.nextId++);
		this.store.set(id, { id, name, type, data: { ...data } });
		return { [type]: { id, name } };
	}

	/** The stored data of a credential (to inspect what preAuthentication cached). */
	read(id: string): ICredentialDataDecryptedObject {
		return { ...this.getStored({ id, name: '' }).data };
	}

	/** Overwrites fields of a stored credential (e.g. to plant a revoked token). */
	update(id: string, data: ICredentialDataDecryptedObject) {
		const stored = this.getStored({ id, name: '' });
		stored.data = { ...stored.data, ...data };
	}

	getType(name: string): ICredentialType {
		const type = this.types.get(name);
		if (!type) throw new Error(`Unknown credential type ${name}`);
		return type;
	}

	getParentTypes(name: string): string[] {
		return this.getType(name).extends ?? [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.getType(typeName);
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
		if (authenticate?.type === 'generic') {
			if (!workflow || !node) throw new Error('Generic authentication needs the workflow and node');
			const resolve = (value: string) =>
				isExpression(value)
					? String(
							workflow.expression.getSimpleParameterValue(
								node,
								value,
								'internal',
								{ $credentials: credentials },
								undefined,
								'',
							) ?? '',
						)
					: value;
			const target = requestOptions as unknown as Record<string, Record<string, string>>;
			for (const [section, entries] of Object.entries(authenticate.properties)) {
				target[section] = target[section] ?? {};
				for (const [key, value] of Object.entries(entries as Record<string, string>)) {
					target[section][resolve(key)] = resolve(value);
				}
			}
		}
		return requestOptions as IHttpRequestOptions;
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.getType(typeName);
		const expirable = type.properties.find(
			(property) => property.type === 'hidden' && property.typeOptions?.expirable === true,
		);
		if (!expirable || typeof type.preAuthentication !== 'function') return undefined;
		if (credentials[expirable.name] !== '' && !credentialsExpired) return undefined;

		const output = (await type.preAuthentication.call(
			helpers,
			credentials,
		)) as ICredentialDataDecryptedObject;
		if (output[expirable.name] === undefined) return undefined;
		const reference = node.credentials?.[typeName];
		if (reference?.id) {
			// n8n reads the stored credential, then writes it with the new token.
			await this.databaseTurn();
			await this.databaseTurn();
			// n8n 2.x never overwrites a field stored as an expression with what it resolved to.
			const stored = this.getStored(reference);
			const persisted = Object.fromEntries(
				Object.entries(output).filter(
					([key]) => key === expirable.name || !isExpression(stored.data[key]),
				),
			);
			stored.data = { ...stored.data, ...persisted };
			this.preAuthenticationCalls.set(
				reference.id,
				(this.preAuthenticationCalls.get(reference.id) ?? 0) + 1,
			);
		}
		return Object.assign(credentials, output);
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.getType(typeName);
		if (typeof type.preAuthentication !== 'function') return undefined;
		return (await type.preAuthentication.call(
			helpers,
			credentials,
		)) as ICredentialDataDecryptedObject;
	}

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentials> {
		const stored = this.getStored(nodeCredentials);
		return {
			id: stored.id,
			name: stored.name,
			type,
			data: undefined,
			getData: () => ({ ...stored.data }),
			getDataToSave: () => ({ id: stored.id, name: stored.name, type, data: '' }),
			setData: (data: ICredentialDataDecryptedObject) => {
				stored.data = { ...data };
			},
		} as unknown as ICredentials;
	}

	/**
	 * The stored data with its expressions resolved for the item, as packages/cli does
	 * (applyDefaultsAndOverwrites): `{{ $json.tenant }}` in a credential field is per item.
	 */
	async getDecrypted(
		_additionalData: unknown,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode?: WorkflowExecuteMode,
		executeData?: IExecuteData,
		_raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		await this.databaseTurn();
		const stored = this.getStored(nodeCredentials);
		if (stored.type !== type)
			throw new Error(`Credential ${stored.id} is a ${stored.type}, not a ${type}`);
		this.reads.set(stored.id, (this.reads.get(stored.id) ?? 0) + 1);
		const data = { ...stored.data };
		if (!expressionResolveValues) return data;
		const values = expressionResolveValues;
		return values.workflow.expression.getParameterValue(
			data as INodeParameters,
			values.runExecutionData,
			values.runIndex,
			values.itemIndex,
			values.node.name,
			values.connectionInputData,
			mode ?? 'manual',
			{},
			executeData,
			false,
			data,
		) as ICredentialDataDecryptedObject;
	}

	async updateCredentials(
		nodeCredentials: INodeCredentialsDetails,
		_type: string,
		data: ICredentialDataDecryptedObject,
	) {
		this.getStored(nodeCredentials).data = { ...data };
	}

	async updateCredentialsOauthTokenData() {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.getType(type).properties;
	}

	/** One query on the modelled database: waits for the ones before it, then takes its time. */
	private async databaseTurn(): Promise<void> {
		const latency = this.databaseLatencyMs;
		if (latency <= 0) return;
		const turn = this.database.then(
			async () => await new Promise<void>((resolve) => setTimeout(resolve, latency)),
		);
		this.database = turn;
		await turn;
	}

	private getStored(reference: INodeCredentialsDetails): StoredCredential {
		const stored = reference.id ? this.store.get(reference.id) : undefined;
		if (!stored) throw new Error(`No credential with id ${reference.id}`);
		return stored;
	}
}
