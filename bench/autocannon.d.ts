// autocannon ships no types; only what the bench uses.
declare module 'autocannon' {
	namespace autocannon {
		interface Histogram {
			average: number;
			mean: number;
			p50: number;
			p90: number;
			p99: number;
			max: number;
			total: number;
		}
		interface Result {
			requests: Histogram & { sent: number };
			latency: Histogram;
			throughput: Histogram;
			errors: number;
			timeouts: number;
			non2xx: number;
			'2xx': number;
			duration: number;
		}
		interface RequestSpec {
			method?: string;
			path?: string;
			headers?: Record<string, string>;
			body?: string;
			setupRequest?: (request: RequestSpec, context: Record<string, unknown>) => RequestSpec;
		}
		interface Options {
			url: string;
			connections?: number;
			pipelining?: number;
			duration?: number;
			amount?: number;
			method?: string;
			headers?: Record<string, string>;
			body?: string;
			requests?: RequestSpec[];
		}
	}
	function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
	export = autocannon;
}
