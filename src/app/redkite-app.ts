import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, Names, Yaml, YamlOutputType } from 'cdk8s';
import { synthesizeChartsLinearly } from './linear-synth';

/**
 * A cdk8s App whose `synth()` runs in linear time (see {@link synthesizeChartsLinearly}) and writes the same files
 * as cdk8s for the file-per-chart and file-per-app output types. Use it in place of `App` when an App holds
 * hundreds of charts. Other output types fall back to cdk8s's own synth.
 */
export class RedkiteApp extends App {
  public override synth(): void {
    if (this.yamlOutputType !== YamlOutputType.FILE_PER_CHART && this.yamlOutputType !== YamlOutputType.FILE_PER_APP) {
      super.synth();
      return;
    }
    fs.mkdirSync(this.outdir, { recursive: true });
    const { charts, hasDependantCharts } = synthesizeChartsLinearly(this);
    if (this.yamlOutputType === YamlOutputType.FILE_PER_APP) {
      if (charts.length > 0) {
        Yaml.save(path.join(this.outdir, `app${this.outputFileExtension}`), charts.flatMap((chart) => chart.manifests));
      }
      return;
    }
    charts.forEach(({ chart, manifests }, index) => {
      // Same naming as cdk8s: a numeric prefix only when charts depend on each other.
      const base = Names.toDnsLabel(chart);
      const name = hasDependantCharts ? `${index.toString().padStart(4, '0')}-${base}` : base;
      Yaml.save(path.join(this.outdir, name + this.outputFileExtension), manifests);
    });
  }

  /** All charts' manifests as one YAML stream, in linear time. */
  public override synthYaml(): string {
    const { charts } = synthesizeChartsLinearly(this);
    return Yaml.stringify(...charts.flatMap((chart) => chart.manifests));
  }
}
