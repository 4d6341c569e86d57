import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { isIP, type LookupFunction } from 'node:net';
import os from 'node:os';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may point. A tenant reads the outcome of every delivery, so an unrestricted webhook
 * maps the server's network. Addresses are classified with ipaddr.js's ranges (IPv4-mapped, NAT64,
 * 6to4, Teredo, site-local, unique-local, reserved…), on the literal address when the webhook is set
 * and on every resolved address before a delivery connects:
 * - public unicast addresses are allowed;
 * - loopback and private ones (RFC 1918, carrier-grade NAT, unique-local) are refused unless
 *   `--webhook-allow` names them (`loopback`, `private`) or a CIDR that holds them;
 * - every other special range (reserved, documentation, NAT64, 6to4, Teredo, site-local…) is refused
 *   unless a `--webhook-allow` CIDR holds the address;
 * - unspecified, broadcast, multicast, link-local, cloud metadata addresses and the server itself are
 *   always refused; `--webhook-deny` refuses more.
 */

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** What an address is, for the policy. */
type AddressClass =
	| { kind: 'public' }
	| { kind: 'openable'; name: 'loopback' | 'private' | 'special'; range: string }
	| { kind: 'never'; range: string };

/** Ranges nothing opens, by ipaddr.js's range names. */
const NEVER_RANGES = new Set(['unspecified', 'broadcast', 'multicast', 'linkLocal']);
/** Cloud metadata services outside the link-local range (Alibaba's, AWS's IPv6 one), as ipaddr.js writes them. */
const METADATA_ADDRESSES = new Set(['100.100.100.200', 'fd00:ec2::254']);
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

const RANGE_WORDS: Record<string, string> = {
	loopback: 'a loopback address',
	private: 'a private address',
	carrierGradeNat: 'a private (carrier-grade NAT) address',
	uniqueLocal: 'a private (unique-local) address',
	unspecified: 'an unspecified address',
	broadcast: 'a broadcast address',
	multicast: 'a multicast address',
	linkLocal: 'a link-local address (cloud metadata lives there)',
	metadata: 'a cloud metadata address',
};

function describeRange(range: string): string {
	return RANGE_WORDS[range] ?? `a special-purpose address (${range})`;
}

/** A literal address (brackets allowed) parsed strictly (no octal/hex IPv4 spellings), or undefined. */
function parseStrict(text: string): Address | undefined {
	const bare = text.replace(/^\[|\]$/g, '');
	return isIP(bare) === 0 ? undefined : ipaddr.parse(bare);
}

/** An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is that IPv4 address; every other one stays as it is. */
function unmapped(address: Address): Address {
	return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
		? (address as ipaddr.IPv6).toIPv4Address()
		: address;
}

/** An address as text for messages: IPv4-mapped ones as their IPv4 address. */
export function canonicalAddress(text: string): string {
	const address = parseStrict(text);
	return address === undefined ? text : unmapped(address).toString();
}

function classify(address: Address): AddressClass {
	if (METADATA_ADDRESSES.has(address.toString())) return { kind: 'never', range: 'metadata' };
	const range = address.range();
	if (NEVER_RANGES.has(range)) return { kind: 'never', range };
	if (range === 'loopback') return { kind: 'openable', name: 'loopback', range };
	if (range === 'private' || range === 'carrierGradeNat' || range === 'uniqueLocal')
		return { kind: 'openable', name: 'private', range };
	if (range === 'unicast' && (address.kind() === 'ipv4' || address.match(GLOBAL_UNICAST_V6)))
		return { kind: 'public' };
	return { kind: 'openable', name: 'special', range };
}

/** The named classes as the ranges classify() gives those names. */
const NAMED_CIDRS: Record<'loopback' | 'private', string[]> = {
	loopback: ['127.0.0.0/8', '::1/128'],
	private: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7'],
};

/**
 * `--webhook-allow` / `--webhook-deny` / `--trust-proxy`: CIDR ranges (a single address is a /32 or
 * /128, `loopback` and `private` their ranges).
 */
export class AddressList {
	constructor(readonly ranges: readonly [Address, number][]) {}

	/** The list as CIDR strings, as Fastify's trustProxy takes it. */
	toCidrs(): string[] {
		return this.ranges.map(([base, bits]) => `${base.toString()}/${bits}`);
	}

	/** True when a range of the list holds the address. */
	covers(address: Address): boolean {
		return this.ranges.some(
			([base, bits]) => base.kind() === address.kind() && address.match(base, bits),
		);
	}
}

export class CidrListError extends Error {}

/** `10.0.0.0/8, ::1, loopback` as an AddressList; throws CidrListError naming the bad entry. */
export function parseCidrList(text: string): AddressList {
	const ranges: [Address, number][] = [];
	const entries = text.split(/[\s,]+/).filter((entry) => entry !== '');
	if (entries.length === 0) throw new CidrListError('the list is empty');
	for (const entry of entries) {
		const lower = entry.toLowerCase();
		if (lower === 'loopback' || lower === 'private') {
			ranges.push(...NAMED_CIDRS[lower].map((cidr) => ipaddr.parseCIDR(cidr)));
			continue;
		}
		const [addressText, prefixText, extra] = entry.split('/');
		const address = parseStrict(addressText);
		const max = address?.kind() === 'ipv4' ? 32 : 128;
		const prefix = prefixText === undefined ? max : Number(prefixText);
		if (
			address === undefined ||
			addressText.startsWith('[') ||
			extra !== undefined ||
			(prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) ||
			prefix > max
		) {
			throw new CidrListError(
				`"${entry}" is not an address, a CIDR range, "loopback" or "private"`,
			);
		}
		ranges.push([address, prefix]);
	}
	return new AddressList(ranges);
}

/** The server itself, which no webhook may reach. */
export interface SelfAddress {
	/** The listening port; 0 before the server listens. */
	port: number;
	/** The listening host (an address, or 0.0.0.0/:: for all of them). */
	host: string;
	/** Origin of the public URL (scheme, host, port), when it differs from the listening address. */
	publicOrigin?: string;
}

export class WebhookRefusedError extends Error {
	readonly code = 'EWEBHOOKREFUSED';
}

export class TargetPolicy {
	constructor(
		private readonly options: { allow?: AddressList; deny?: AddressList; self: () => SelfAddress },
	) {}

	/** Why a connection to this address and port is refused; undefined when it is allowed. */
	refusalFor(text: string, port: number): string | undefined {
		const parsed = parseStrict(text);
		if (parsed === undefined) return `${text} (not an IP address)`;
		const address = unmapped(parsed);
		const ip = address.toString();
		const found = classify(address);
		if (found.kind === 'never') return `${ip} (${describeRange(found.range)})`;
		if (this.isSelf(address, port)) return `${ip} port ${port} (this server itself)`;
		if (this.options.deny?.covers(address))
			return `${ip} (in the ranges refused by --webhook-deny)`;
		if (found.kind === 'public' || this.options.allow?.covers(address)) return undefined;
		const opener =
			found.name === 'special'
				? `--webhook-allow with a CIDR holding it`
				: `--webhook-allow ${found.name}`;
		return `${ip} (${describeRange(found.range)}; the server admits it only with ${opener})`;
	}

	/** Why this URL is refused, before any name is resolved (its literal address, the public origin). */
	refusalForUrl(url: URL): string | undefined {
		const self = this.options.self();
		if (self.publicOrigin !== undefined && url.origin === self.publicOrigin)
			return `${url.origin} (this server itself)`;
		const host = url.hostname.replace(/^\[|\]$/g, '');
		return isIP(host) !== 0 ? this.refusalFor(host, portOf(url)) : undefined;
	}

	/**
	 * The check at setting time: the literal address, or every address the name resolves to now (a
	 * name that does not resolve yet is accepted; the delivery checks again after resolving it).
	 */
	async refusalForUrlResolved(url: URL, timeoutMs = 2000): Promise<string | undefined> {
		const literal = this.refusalForUrl(url);
		if (literal !== undefined || isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0) return literal;
		const addresses = await Promise.race([
			lookup(url.hostname, { all: true }).catch(() => []),
			sleep(timeoutMs, [], { ref: false }),
		]);
		return this.refusalOfResolved(url.hostname, addresses, portOf(url));
	}

	/** Why a connection to a name that resolved to these addresses is refused (the first refused one). */
	private refusalOfResolved(hostname: string, addresses: LookupAddress[], port: number) {
		for (const { address } of addresses) {
			const refusal = this.refusalFor(address, port);
			if (refusal !== undefined) return `${hostname} resolves to ${refusal}`;
		}
		return undefined;
	}

	/**
	 * A lookup for the delivery's connection: resolves as Node would and fails the connection when any
	 * resolved address is refused (checked on the addresses actually connected to, so a name that
	 * changes its answer after the setting was saved does not get through).
	 */
	lookupFor(port: number): LookupFunction {
		return ((
			hostname: string,
			options: { all?: boolean; family?: number },
			callback: (...args: unknown[]) => void,
		) => {
			dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
				if (error) return callback(error);
				const refusal = this.refusalOfResolved(hostname, addresses, port);
				if (refusal !== undefined) return callback(new WebhookRefusedError(refusal));
				if (options.all) return callback(null, addresses);
				return callback(null, addresses[0].address, addresses[0].family);
			});
		}) as LookupFunction;
	}

	private isSelf(address: Address, port: number): boolean {
		const self = this.options.self();
		if (self.port === 0 || port !== self.port) return false;
		if (address.range() === 'loopback') return true;
		const ip = address.toString();
		const host = canonicalAddress(self.host);
		if (ip === host) return true;
		if (host !== '0.0.0.0' && host !== '::') return false;
		return Object.values(os.networkInterfaces())
			.flat()
			.some((info) => info !== undefined && canonicalAddress(info.address) === ip);
	}
}

export function portOf(url: URL): number {
	if (url.port !== '') return Number(url.port);
	return url.protocol === 'https:' ? 443 : 80;
}
