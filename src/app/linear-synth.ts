import { ApiObject, App, Chart, DependencyGraph } from 'cdk8s';
import { IConstruct } from 'constructs';

/**
 * Synthesizes every chart of an App in time linear in the App's size.
 *
 * cdk8s's `Chart.toJson()` re-resolves dependencies and re-validates the *whole App* for each chart
 * (node_modules/cdk8s/lib/app.js, `App._synthChart`), so `app.synth()` costs charts × app size: quadratic for a
 * GitOps repository with one chart per RedisCluster. Here validation and dependency resolution run once for the
 * App, then each chart is ordered and rendered on its own, with the same semantics as cdk8s (construct-level
 * dependencies become chart and ApiObject dependencies; objects belong to their closest chart).
 */
export interface SynthesizedChart {
  readonly chart: Chart;
  readonly manifests: unknown[];
}

function allConstructs(root: IConstruct): IConstruct[] {
  return root.node.findAll();
}

function validateOnce(constructs: IConstruct[]): void {
  const errors = constructs.flatMap((construct) => construct.node.validate().map((error) => `[${construct.node.path}] ${error}`));
  if (errors.length > 0) {
    throw new Error(`Validation failed with the following errors:\n  ${errors.join('\n  ')}`);
  }
}

/** Mirrors cdk8s's `resolveDependencies`, run once. Returns whether any chart depends on another. */
function resolveDependenciesOnce(constructs: IConstruct[]): boolean {
  let hasDependantCharts = false;
  for (const parent of constructs.filter(Chart.isChart)) {
    for (const child of parent.node.children.filter(Chart.isChart)) {
      parent.node.addDependency(child);
      hasDependantCharts = true;
    }
  }
  const dependencies = constructs.flatMap((source) => source.node.dependencies.map((target) => ({ source, target })));
  for (const { source, target } of dependencies) {
    const sourceChart = Chart.of(source);
    const targetChart = Chart.of(target);
    if (sourceChart !== targetChart) {
      sourceChart.node.addDependency(targetChart);
      hasDependantCharts = true;
    }
    const targets = target.node.findAll().filter((c) => ApiObject.isApiObject(c) && Chart.of(c) === targetChart);
    const sources = source.node.findAll().filter((c) => ApiObject.isApiObject(c) && Chart.of(c) === sourceChart);
    for (const targetObject of targets) {
      for (const sourceObject of sources) {
        if (targetObject !== sourceObject) sourceObject.node.addDependency(targetObject);
      }
    }
  }
  return hasDependantCharts;
}

function renderChart(chart: Chart): unknown[] {
  return new DependencyGraph(chart.node)
    .topology()
    .filter((construct): construct is ApiObject => ApiObject.isApiObject(construct) && Chart.of(construct) === chart)
    .map((apiObject) => apiObject.toJson());
}

/** Renders every chart of `app` (in App order) and tells whether charts depend on each other. */
export function synthesizeChartsLinearly(app: App): { charts: SynthesizedChart[]; hasDependantCharts: boolean } {
  const constructs = allConstructs(app);
  validateOnce(constructs);
  const hasDependantCharts = resolveDependenciesOnce(constructs);
  return { charts: app.charts.map((chart) => ({ chart, manifests: renderChart(chart) })), hasDependantCharts };
}
