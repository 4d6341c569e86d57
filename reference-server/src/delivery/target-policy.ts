import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import os from 'node:os';

/**
 * Where a webhook may point. A tenant reads the outcome of every delivery (status and error), so an
 * unrestricted webhook maps the server's network. Always refused: link-local and cloud metadata
 * addresses, unspecified/broadcast/multicast ones, and the server itself (its listening port on any
 * of its own addresses, or its public origin: a webhook aimed at its own form loops). Loopback and
 * private ranges are allowed by default (n8n usually runs beside the server); `--webhook-deny`
 * refuses more ranges and `--webhook-allow`, when set, admits only its ranges.
 */

const ALWAYS_REFUSED: [string, number, 'ipv4' | 'ipv6', string][] = [
	['0.0.0.0', 8, 'ipv4', 'an unspecified address'],
	['169.254.0.0', 16, 'ipv4', 'a link-local address (cloud metadata lives there)'],
	['100.100.100.200', 32, 'ipv4', 'a cloud metadata address'],
	['224.0.0.0', 4, 'ipv4', 'a multicast address'],
	['240.0.0.0', 4, 'ipv4', 'a reserved address'],
	['::', 128, 'ipv6', 'an unspecified address'],
	['fe80::', 10, 'ipv6', 'a link-local address'],
	['fd00:ec2::254', 128, 'ipv6', 'a cloud metadata address'],
	['ff00::', 8, 'ipv6', 'a multicast address'],
];

/** Names accepted in the CIDR lists besides CIDRs and single addresses. */
const NAMED_RANGES: Record<string, string[]> = {
	loopback: ['127.0.0.0/8', '::1/128'],
	private: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7'],
};

export class CidrListError extends Error {}

/** `10.0.0.0/8, ::1, loopback` as a BlockList; throws CidrListError naming the bad entry. */
export function parseCidrList(text: string): BlockList {
	const list = new BlockList();
	const entries = text
		.split(/[\s,]+/)
		.filter((entry) => entry !== '')
		.flatMap((entry) => NAMED_RANGES[entry.toLowerCase()] ?? [entry]);
	if (entries.length === 0) throw new CidrListError('the list is empty');
	for (const entry of entries) {
		const [address, prefixText, extra] = entry.split('/');
		const family = isIP(address);
		const max = family === 4 ? 32 : 128;
		const prefix = prefixText === undefined ? max : Number(prefixText);
		if (
			family === 0 ||
			extra !== undefined ||
			!Number.isInteger(prefix) ||
			prefix < 0 ||
			prefix > max ||
			(prefixText !== undefined && !/^\d+$/.test(prefixText))
		) {
			throw new CidrListError(
				`"${entry}" is not an address, a CIDR range, "loopback" or "private"`,
			);
		}
		list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
	}
	return list;
}

/**
 * An IPv6 address that carries an IPv4 one (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64
 * 64:ff9b::a.b.c.d) as that IPv4 address; other addresses as they are, without brackets.
 */
export function canonicalAddress(address: string): string {
	const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
	if (isIP(bare) !== 6) return bare;
	const groups = expandIpv6(bare);
	const prefixZero = (n: number) => groups.slice(0, n).every((g) => g === 0);
	const embedded =
		(prefixZero(5) && groups[5] === 0xffff) ||
		(prefixZero(6) && (groups[6] !== 0 || groups[7] > 1)) ||
		(groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0));
	if (!embedded) return bare;
	return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
}

function expandIpv6(address: string): number[] {
	let text = address;
	// A dotted IPv4 tail becomes two groups.
	const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
	if (dotted) {
		const [a, b, c, d] = dotted[1].split('.').map(Number);
		text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
	}
	const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
	const headGroups = head === '' ? [] : head.split(':');
	const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
	const zeros =
		tail === undefined
			? []
			: new Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
	return [...headGroups, ...zeros, ...tailGroups].map((group) => parseInt(group, 16));
}

export interface SelfAddress {
	/** The listening port; 0 before the server listens. */
	port: number;
	/** The listening host (an address, or 0.0.0.0/:: for all of them). */
	host: string;
	/** Origin of the public URL (scheme, host, port), when it differs from the listening address. */
	publicOrigin?: string;
}

export interface TargetPolicyOptions {
	allow?: BlockList;
	deny?: BlockList;
	self: () => SelfAddress;
}

export class WebhookRefusedError extends Error {
	readonly code = 'EWEBHOOKREFUSED';
}

export class TargetPolicy {
	private readonly always = new BlockList();
	private readonly reasons: [BlockList, string][] = [];

	constructor(private readonly options: TargetPolicyOptions) {
		for (const [address, prefix, family, reason] of ALWAYS_REFUSED) {
			const one = new BlockList();
			one.addSubnet(address, prefix, family);
			this.always.addSubnet(address, prefix, family);
			this.reasons.push([one, reason]);
		}
	}

	/** Why a connection to this address and port is refused; undefined when it is allowed. */
	refusalFor(address: string, port: number): string | undefined {
		const ip = canonicalAddress(address);
		const family = isIP(ip) === 4 ? 'ipv4' : 'ipv6';
		if (this.always.check(ip, family)) {
			const reason =
				this.reasons.find(([list]) => list.check(ip, family))?.[1] ?? 'a refused address';
			return `${ip} (${reason})`;
		}
		if (this.isSelf(ip, port)) return `${ip} port ${port} (this server itself)`;
		if (this.options.deny?.check(ip, family))
			return `${ip} (in the ranges refused by --webhook-deny)`;
		if (this.options.allow && !this.options.allow.check(ip, family))
			return `${ip} (outside the ranges allowed by --webhook-allow)`;
		return undefined;
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
		const addresses = await resolveAll(url.hostname, timeoutMs);
		for (const { address } of addresses) {
			const refusal = this.refusalFor(address, portOf(url));
			if (refusal !== undefined) return `${url.hostname} resolves to ${refusal}`;
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
				for (const { address } of addresses) {
					const refusal = this.refusalFor(address, port);
					if (refusal !== undefined)
						return callback(new WebhookRefusedError(`${hostname} resolves to ${refusal}`));
				}
				if (options.all) return callback(null, addresses);
				return callback(null, addresses[0].address, addresses[0].family);
			});
		}) as LookupFunction;
	}

	private isSelf(ip: string, port: number): boolean {
		const self = this.options.self();
		if (self.port === 0 || port !== self.port) return false;
		const host = canonicalAddress(self.host);
		if (ip === host) return true;
		if (ip.startsWith('127.') || ip === '::1') return true;
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

function resolveAll(hostname: string, timeoutMs: number): Promise<LookupAddress[]> {
	return new Promise((resolve) => {
		const timer = setTimeout(() => resolve([]), timeoutMs);
		dnsLookup(hostname, { all: true }, (error, addresses) => {
			clearTimeout(timer);
			resolve(error ? [] : addresses);
		});
	});
}
