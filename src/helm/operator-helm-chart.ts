import { App, Chart, Yaml } from 'cdk8s';
import {
  DEFAULT_OPERATOR_REPLICAS,
  DEFAULT_OPERATOR_RESOURCES,
  OPERATOR_IMAGE_REPOSITORY,
} from '../operator-bundle/operator-bundle';
import { validateImageReference } from '../operator-bundle/operator-image';
import { PACKAGE_VERSION } from '../operator-bundle/package-version';
import { addReleaseCrd, addReleaseOperator } from '../release/release-charts';
import { HELM_VARIANTS, HelmVariant, helmCondition } from './helm-variants';

/**
 * The operator's Helm chart, generated from the constructs that make dist/ (never kept by hand): each structural
 * variant (RBAC scope, leader election) is synthesized with marker values where the chart takes a value, the
 * markers become template expressions, and each object is wrapped in the condition under which it has that form.
 * With default values `helm template` renders what dist/ holds, minus the Namespace (`helm install
 * --create-namespace` makes it); test/install/helm-chart.test.ts checks both with a real helm.
 */

// Marker values: valid where the constructs validate them, and unlike anything else in the output.
const RELEASE_NAMESPACE_MARKER = 'redkite-helm-release-namespace';
const WATCH_NAMESPACE_MARKER = 'redkite-helm-watch-namespace';
const IMAGE_MARKER = 'redkite-helm.invalid/operator-image:marker';
// Values the constructs type as numbers or objects get their markers after synthesis.
const REPLICAS_MARKER = '__redkite_helm_replicas__';
const RESOURCES_MARKER = '__redkite_helm_resources__';

const TEMPLATE_EXPRESSIONS: ReadonlyArray<readonly [string, string]> = [
  [RELEASE_NAMESPACE_MARKER, '{{ .Release.Namespace }}'],
  [WATCH_NAMESPACE_MARKER, '{{ include "redkite.watchNamespace" . }}'],
  [IMAGE_MARKER, '{{ include "redkite.image" . }}'],
  [REPLICAS_MARKER, '{{ .Values.replicas }}'],
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Manifest = any;

/** Chart metadata; the version follows the package, so chart, image and npm package are released together. */
export interface OperatorHelmChartProps {
  /** @default the package version */
  readonly version?: string;
  /**
   * Default image of the chart's values, `<repository>:<tag>`.
   * @default - the operator image of this version (`ghcr.io/redkite/redkite:<package version>`)
   */
  readonly image?: string;
  /**
   * Project home page (Chart.yaml `home` and `sources`).
   * @default 'https://github.com/redkite/redkite'
   */
  readonly homeUrl?: string;
}

/** Splits `<repository>:<tag>` into the chart's image values; the tag may be empty (the chart's appVersion). */
export function helmImageValues(image: string): { repository: string; tag: string } {
  if (image.includes('@')) throw new Error(`operatorHelmChart: the chart's image values take a tag, not a digest: "${image}"`);
  const lastSlash = image.lastIndexOf('/');
  const colon = image.indexOf(':', lastSlash + 1);
  return colon < 0 ? { repository: image, tag: '' } : { repository: image.slice(0, colon), tag: image.slice(colon + 1) };
}

function synthesizeVariant(variant: HelmVariant): Manifest[] {
  const chart = new Chart(new App(), 'helm');
  addReleaseOperator(chart, {
    namespace: RELEASE_NAMESPACE_MARKER,
    image: IMAGE_MARKER,
    watchNamespace: variant.rbacScope === 'namespace' ? WATCH_NAMESPACE_MARKER : undefined,
    leaderElection: variant.leaderElection,
    replicas: variant.leaderElection ? DEFAULT_OPERATOR_REPLICAS : 1,
  });
  const manifests: Manifest[] = chart.toJson();
  for (const deployment of manifests.filter((manifest) => manifest.kind === 'Deployment')) {
    deployment.spec.replicas = REPLICAS_MARKER;
    for (const container of deployment.spec.template.spec.containers) container.resources = RESOURCES_MARKER;
  }
  return manifests;
}

/** YAML with the markers turned into template expressions; throws if a marker is left (a value the chart misses). */
function templateText(manifest: Manifest): string {
  let text = Yaml.stringify(manifest);
  for (const [marker, expression] of TEMPLATE_EXPRESSIONS) text = text.split(marker).join(expression);
  text = text.replace(new RegExp(`^( *)resources: ${RESOURCES_MARKER}$`, 'gm'), (_line, indent: string) =>
    `${indent}resources:\n{{- toYaml .Values.resources | nindent ${indent.length + 2} }}`,
  );
  const leftover = /redkite-helm|__redkite_helm/.exec(text);
  if (leftover) throw new Error(`operatorHelmChart: a marker was not turned into a template expression in ${manifest.kind}/${manifest.metadata.name}:\n${text}`);
  return text;
}

const fileName = (manifest: Manifest) => `${manifest.kind.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase()}-${manifest.metadata.name}.yaml`;

/** One template per object: its form in each variant, under the condition that selects it. */
function objectTemplates(): Record<string, string> {
  const forms = new Map<string, Map<string, HelmVariant[]>>();
  for (const variant of HELM_VARIANTS) {
    for (const manifest of synthesizeVariant(variant)) {
      const file = `templates/${fileName(manifest)}`;
      const byText = forms.get(file) ?? new Map<string, HelmVariant[]>();
      const text = templateText(manifest);
      byText.set(text, [...(byText.get(text) ?? []), variant]);
      forms.set(file, byText);
    }
  }
  const templates: Record<string, string> = {};
  for (const [file, byText] of [...forms.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const branches = [...byText.entries()].map(([text, variants]) => ({ text, condition: helmCondition(variants) }));
    if (branches.length === 1 && branches[0].condition === undefined) {
      templates[file] = branches[0].text;
      continue;
    }
    const body = branches.map(({ text, condition }, index) => `{{- ${index === 0 ? 'if' : 'else if'} ${condition} }}\n${text.trimEnd()}\n`).join('');
    templates[file] = `${body}{{- end }}\n`;
  }
  return templates;
}

const HELPERS = `{{/* Generated by \`npm run synth\` (src/helm/operator-helm-chart.ts). */}}
{{- define "redkite.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{- define "redkite.watchNamespace" -}}
{{- .Values.watchNamespace | default .Release.Namespace -}}
{{- end -}}

{{/* The OperatorBundle construct's own checks, for values the schema cannot relate. */}}
{{- define "redkite.validate" -}}
{{- if and (gt (int .Values.replicas) 1) (not .Values.leaderElection.enabled) -}}
{{- fail (printf "replicas: %d needs leaderElection.enabled: true (two controllers without a Lease would act on the same Redis pods)" (int .Values.replicas)) -}}
{{- end -}}
{{- if and (eq .Values.rbac.scope "cluster") .Values.watchNamespace -}}
{{- fail "watchNamespace needs rbac.scope: namespace (a ClusterRole would grant every namespace to a controller that watches one)" -}}
{{- end -}}
{{- end -}}
`;

function valuesYaml(image: { repository: string; tag: string }): string {
  const section = (comment: string, value: Record<string, unknown>) => `# ${comment}\n${Yaml.stringify(value)}`;
  return [
    '# Values of the redkite operator chart (generated by `npm run synth` from the OperatorBundle construct).\n',
    section("Operator image; an empty tag means the chart's appVersion (the package version).", { image }),
    section('Operator pods; one leads, the others stand by. More than one needs leader election.', { replicas: DEFAULT_OPERATOR_REPLICAS }),
    section('Elect a leader through a Lease in the release namespace, so that only one pod reconciles.', { leaderElection: { enabled: true } }),
    section('CPU and memory of the operator container.', { resources: DEFAULT_OPERATOR_RESOURCES }),
    section('cluster: a ClusterRole, RedisClusters in every namespace; namespace: a Role in watchNamespace only.', { rbac: { scope: 'cluster' } }),
    section('With rbac.scope namespace: the namespace whose RedisClusters the operator manages (empty: the release namespace).', { watchNamespace: '' }),
  ].join('\n');
}

const QUANTITIES = { type: 'object', additionalProperties: { type: ['string', 'number'] } };

function valuesSchema(): Record<string, unknown> {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    additionalProperties: false,
    required: ['image', 'replicas', 'leaderElection', 'resources', 'rbac', 'watchNamespace'],
    properties: {
      image: {
        type: 'object',
        additionalProperties: false,
        required: ['repository'],
        properties: { repository: { type: 'string', minLength: 1 }, tag: { type: 'string' } },
      },
      replicas: { type: 'integer', minimum: 0 },
      leaderElection: { type: 'object', additionalProperties: false, required: ['enabled'], properties: { enabled: { type: 'boolean' } } },
      resources: { type: 'object', additionalProperties: false, properties: { requests: QUANTITIES, limits: QUANTITIES } },
      rbac: { type: 'object', additionalProperties: false, required: ['scope'], properties: { scope: { enum: ['cluster', 'namespace'] } } },
      watchNamespace: { type: 'string', maxLength: 63, pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$' },
    },
  };
}

function crdFile(): string {
  const chart = new Chart(new App(), 'crd');
  addReleaseCrd(chart);
  return Yaml.stringify(...chart.toJson());
}

/** The chart's files, by path inside the chart folder. Pure: main.ts writes them to dist/helm/redkite/. */
export function operatorHelmChart(props: OperatorHelmChartProps = {}): Record<string, string> {
  const version = props.version ?? PACKAGE_VERSION;
  const homeUrl = props.homeUrl ?? 'https://github.com/redkite/redkite';
  const image = props.image === undefined ? { repository: OPERATOR_IMAGE_REPOSITORY, tag: '' } : helmImageValues(validateImageReference(props.image, 'operatorHelmChart image'));
  const chartYaml = Yaml.stringify({
    apiVersion: 'v2',
    name: 'redkite',
    description: 'redkite: the RedisCluster CRD and its controller (generated from the redkite constructs)',
    type: 'application',
    version,
    appVersion: version,
    kubeVersion: '>=1.28.0-0',
    home: homeUrl,
    sources: [homeUrl],
  });
  return {
    'Chart.yaml': chartYaml,
    'values.yaml': valuesYaml(image),
    'values.schema.json': `${JSON.stringify(valuesSchema(), null, 2)}\n`,
    'crds/redisclusters.redis.redkite.io.yaml': crdFile(),
    'templates/_helpers.tpl': HELPERS,
    'templates/validate.yaml': '{{- include "redkite.validate" . -}}\n',
    ...objectTemplates(),
  };
}
