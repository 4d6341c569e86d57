/**
 * The growth curves as one SVG next to results.json: a vega-lite spec, compiled to vega and rendered
 * headless by vega's View#toSVG() (its string renderer needs no canvas and no browser).
 */
import { writeFileSync } from 'fs';
import { join } from 'path';

import type * as Vega from 'vega';
import type { Field } from 'vega-lite/build/channeldef';
import type * as VegaLite from 'vega-lite/build/index';
import type { LayerSpec } from 'vega-lite/build/spec/layer';

import { quick } from './context';

export interface GrowthCurves {
	/** Time per page (µs) of the node in n8n's engine and of a plain fetch loop doing the same requests. */
	getMany: Array<{ pages: number; nodeUs: number; fetchUs: number }>;
	/** The goal of the Get Many curve: the node's time per page at most this factor of the first point's. */
	perPageFactor: number;
	deepPage: { tenantPages: number; points: Array<{ page: number; p50: number; p99: number }> };
	/** The goal of the deep page: its p99 at most this factor of page 1's. */
	deepPageFactor: number;
	upload: Array<{ mb: number; seconds: number; nodeMb: number; serverMb: number }>;
	memoryLimitMb: number;
}

/** bench/growth.svg, next to bench/results.json (this file runs from bench/dist/bench/lib). */
export const CHART_FILE = join(__dirname, '..', '..', '..', 'growth.svg');

const WIDTH = 250;
const HEIGHT = 200;
const GOAL_COLOR = '#c0392b';
const thousands = (n: number) => n.toLocaleString('en-US');

/** A dashed horizontal line at `y`: a goal or a limit, named in the panel's subtitle. */
function goalLine(y: number): LayerSpec<Field> {
	return {
		data: { values: [{ y }] },
		layer: [
			{
				mark: { type: 'rule', strokeDash: [5, 4], color: GOAL_COLOR, strokeWidth: 1.5 },
				encoding: { y: { field: 'y', type: 'quantitative' } },
			},
		],
	};
}

/** A panel's title, with a note and what its dashed line means underneath (two lines in each panel, so the titles align). */
const panelTitle = (text: string, note: string, goal: string) => ({
	text,
	subtitle: [note, `red dashed line: ${goal}`],
	subtitleColor: '#555',
	subtitleFontSize: 10,
});

/** A log scale over `values` with some room either side, so the end points are not on the axes. */
const paddedLog = (values: number[]) => ({
	type: 'log' as const,
	domain: [Math.min(...values) / 1.5, Math.max(...values) * 1.5],
	nice: false,
});

type Axis = { title: string; format?: string };

/** A y scale from 0 with room above the highest of `values` (and of a goal line) for the labels. */
const roomAbove = (...values: number[]) => ({
	domainMin: 0,
	domainMax: Math.max(...values) * 1.12,
});

/**
 * Two series of points over a log x axis (at `x`'s values), each labelled with its y value: the
 * first series' labels above its points and the second's below, so that close points stay legible.
 */
function twoLines(
	points: Array<{ x: number; a: number; b: number }>,
	names: [string, string],
	colors: [string, string],
	x: Axis,
	y: Axis,
	goal: number,
): LayerSpec<Field> {
	const values = points.flatMap((p) => [
		{ x: p.x, series: names[0], y: p.a },
		{ x: p.x, series: names[1], y: p.b },
	]);
	const xs = points.map((p) => p.x);
	return {
		data: { values },
		encoding: {
			x: {
				field: 'x',
				type: 'quantitative',
				scale: paddedLog(xs),
				axis: { values: xs, format: ',d', title: x.title },
			},
			y: {
				field: 'y',
				type: 'quantitative',
				scale: roomAbove(goal, ...points.flatMap((p) => [p.a, p.b])),
				title: y.title,
			},
			color: {
				field: 'series',
				type: 'nominal',
				sort: names,
				scale: { domain: names, range: colors },
				legend: { title: null },
			},
		},
		layer: [
			{ mark: { type: 'line', point: true } },
			...names.map((series, i) => ({
				transform: [{ filter: { field: 'series', equal: series } }],
				mark: { type: 'text' as const, dy: i === 0 ? -9 : 13, fontSize: 10 },
				encoding: {
					text: { field: 'y', type: 'quantitative' as const, format: y.format ?? '.1f' },
				},
			})),
		],
	};
}

export function growthSpec(curves: GrowthCurves): VegaLite.TopLevelSpec {
	const firstPages = curves.getMany[0];
	const [page1, deep] = curves.deepPage.points;
	const pageLabel = (page: number) => `page ${thousands(page)}`;
	const latencies = curves.deepPage.points.flatMap((p) => [
		{ page: pageLabel(p.page), statistic: 'p50', ms: p.p50 },
		{ page: pageLabel(p.page), statistic: 'p99', ms: p.p99 },
	]);
	const panel = { width: WIDTH, height: HEIGHT };
	const perPageGoal = firstPages.nodeUs * curves.perPageFactor;
	const deepPageGoal = page1.p99 * curves.deepPageFactor;

	return {
		$schema: 'https://vega.github.io/schema/vega-lite/v6.json',
		title: {
			text: 'How cost grows with size',
			subtitle: `npm run bench${quick ? ' -- --quick' : ''}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
			anchor: 'start',
			offset: 16,
		},
		background: 'white',
		padding: 12,
		config: {
			font: 'Helvetica, Arial, sans-serif',
			axis: { titleFontSize: 11, labelFontSize: 10, grid: true },
			legend: { orient: 'bottom', direction: 'horizontal', labelFontSize: 10, labelLimit: 0 },
		},
		// Laid out by the plots alone: vega's estimates of text widths (no canvas) are generous.
		bounds: 'flush',
		resolve: { scale: { color: 'independent' } },
		spacing: 48,
		hconcat: [
			{
				...panel,
				title: panelTitle(
					'Page > Get Many, return all',
					'best run of each; listing cache off',
					`goal, node ≤ ${curves.perPageFactor}× its time per page at ${thousands(firstPages.pages)}`,
				),
				layer: [
					twoLines(
						curves.getMany.map((p) => ({ x: p.pages, a: p.nodeUs, b: p.fetchUs })),
						['Tenant node in n8n', 'plain fetch loop'],
						['#1f77b4', '#7f7f7f'],
						{ title: 'pages in the tenant (log scale)' },
						{ title: 'time per page (µs)' },
						perPageGoal,
					),
					goalLine(perPageGoal),
				],
			},
			{
				...panel,
				title: panelTitle(
					`GET /api/pages, ${thousands(curves.deepPage.tenantPages)}-page tenant`,
					'one request at a time; listing cache off',
					`goal, p99 ≤ ${curves.deepPageFactor}× page 1's p99`,
				),
				layer: [
					{
						data: { values: latencies },
						encoding: {
							x: {
								field: 'page',
								type: 'nominal',
								sort: [pageLabel(page1.page), pageLabel(deep.page)],
								axis: { labelAngle: 0, title: 'listing page (per_page 100)' },
							},
							xOffset: { field: 'statistic' },
							y: {
								field: 'ms',
								type: 'quantitative',
								title: 'latency (ms)',
								scale: roomAbove(deepPageGoal, page1.p99, deep.p99),
							},
						},
						layer: [
							{
								mark: { type: 'bar' },
								encoding: {
									color: {
										field: 'statistic',
										type: 'nominal',
										legend: { title: null },
										scale: { range: ['#9ecae1', '#08519c'] },
									},
								},
							},
							{
								mark: { type: 'text', dy: -6, fontSize: 10 },
								encoding: { text: { field: 'ms', type: 'quantitative', format: '.2f' } },
							},
						],
					},
					goalLine(deepPageGoal),
				],
			},
			{
				...panel,
				title: panelTitle(
					'Asset Upload: resident memory',
					'growth: peak minus before, fresh processes',
					`limit, < ${curves.memoryLimitMb} MB`,
				),
				layer: [
					twoLines(
						curves.upload.map((p) => ({ x: p.mb, a: p.nodeMb, b: p.serverMb })),
						['n8n process (the node)', 'server process'],
						['#ff7f0e', '#2ca02c'],
						{ title: 'upload size (MB, log scale)' },
						{ title: 'RSS growth (MB)', format: '.0f' },
						curves.memoryLimitMb,
					),
					goalLine(curves.memoryLimitMb),
				],
			},
		],
	};
}

/**
 * vega and vega-lite are ES modules (vega-lite with a top-level await), which require() cannot load;
 * TypeScript compiles import() to require() for this CommonJS build, so it is hidden from it.
 */
const importEsm = new Function('specifier', 'return import(specifier)') as <T>(
	specifier: string,
) => Promise<T>;

export async function renderSvg(spec: VegaLite.TopLevelSpec): Promise<string> {
	const vegaLite = await importEsm<typeof VegaLite>('vega-lite');
	const vega = await importEsm<typeof Vega>('vega');
	const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' });
	try {
		return await view.toSVG();
	} finally {
		view.finalize();
	}
}

/** Renders the curves and writes them to CHART_FILE; returns its path. */
export async function writeGrowthChart(curves: GrowthCurves): Promise<string> {
	writeFileSync(CHART_FILE, await renderSvg(growthSpec(curves)));
	return CHART_FILE;
}
