import { RedkiteApp } from './src/app/redkite-app';
import { addReleaseCharts } from './src/release/release-charts';
import { addSampleCharts } from './src/release/sample-charts';

// `npm run synth` (cdk8s synth) writes the release bundle and the samples to dist/.
const app = new RedkiteApp();
addReleaseCharts(app);
addSampleCharts(app);
app.synth();
