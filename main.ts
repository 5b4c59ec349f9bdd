import * as fs from 'node:fs';
import * as path from 'node:path';
import { Yaml } from 'cdk8s';
import { RedkiteApp } from './src/app/redkite-app';
import { operatorHelmChart } from './src/helm/operator-helm-chart';
import { OPERATOR_IMAGE_ENVIRONMENT_VARIABLE, validateImageReference } from './src/operator-bundle/operator-image';
import { PACKAGE_VERSION } from './src/operator-bundle/package-version';
import { argoCdApplication, argoCdHealthCheckConfigMap } from './src/release/argocd-application';
import { KUSTOMIZATION_FILE, releaseKustomization } from './src/release/kustomization';
import { CRD_CHART_ID, OPERATOR_CHART_ID, addReleaseCharts } from './src/release/release-charts';
import { addSampleCharts } from './src/release/sample-charts';

// `npm run synth` (cdk8s synth) writes to dist/: the release (CRD, operator) with its kustomization.yaml, the
// opt-in samples under samples/, the Helm chart under helm/redkite/, and the Argo CD Application and health check
// under argocd/. REDKITE_OPERATOR_IMAGE=<reference> synthesizes another operator image everywhere.
const imageOverride = process.env[OPERATOR_IMAGE_ENVIRONMENT_VARIABLE];
const image = imageOverride ? validateImageReference(imageOverride, OPERATOR_IMAGE_ENVIRONMENT_VARIABLE) : undefined;
const packageJson = JSON.parse(fs.readFileSync(path.join(__dirname, 'package.json'), 'utf8')) as { repository?: { url?: string } };
const repositoryUrl = (packageJson.repository?.url ?? 'https://github.com/redkite/redkite.git').replace(/^git\+/, '');

const app = new RedkiteApp();
addReleaseCharts(app, { image });
app.synth();

const samples = new RedkiteApp({ outdir: path.join(app.outdir, 'samples') });
addSampleCharts(samples);
samples.synth();

function write(file: string, content: string): void {
  const target = path.join(app.outdir, file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, content);
}

write(KUSTOMIZATION_FILE, releaseKustomization([CRD_CHART_ID, OPERATOR_CHART_ID].map((id) => `${id}${app.outputFileExtension}`)));
for (const [file, content] of Object.entries(operatorHelmChart({ image, homeUrl: repositoryUrl.replace(/\.git$/, '') }))) {
  write(path.join('helm', 'redkite', file), content);
}
write(path.join('argocd', 'redkite-application.yaml'), Yaml.stringify(argoCdApplication({ repoURL: repositoryUrl, targetRevision: `v${PACKAGE_VERSION}` })));
write(path.join('argocd', 'argocd-cm-redkite-health.yaml'), Yaml.stringify(argoCdHealthCheckConfigMap()));
