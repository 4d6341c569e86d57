import ipaddr from 'ipaddr.js';

/**
 * The rate-limit key of a client address. One IPv6 host is usually given a whole /64, so counting
 * each of its addresses apart would give it 2^64 budgets: IPv6 addresses are grouped by their /64.
 * IPv4 (also IPv4-mapped IPv6) counts per address.
 */
export function clientAddressKey(ip: string): string {
	if (!ipaddr.isValid(ip)) return ip;
	const address = ipaddr.process(ip);
	if (address.kind() === 'ipv4') return address.toString();
	const groups = (address as ipaddr.IPv6).parts.slice(0, 4);
	return `${new ipaddr.IPv6([...groups, 0, 0, 0, 0]).toString()}/64`;
}
