import type { RouteOptions } from 'fastify';

type RouteHookName = 'preValidation' | 'preHandler' | 'onSend' | 'onResponse';

/**
 * Adds a hook to one route (from an onRoute hook), after the route's own hooks of that kind. Plugins
 * attach their hooks only to the routes that need them, and route hooks of one kind run in the
 * order they were added, which the idempotency and faults plugins rely on (the answer stored, then
 * possibly dropped).
 */
export function addRouteHook(route: RouteOptions, name: RouteHookName, hook: unknown): void {
	const existing = route[name] as unknown;
	const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
	(route as unknown as Record<RouteHookName, unknown[]>)[name] = [...list, hook];
}
