import { CelFunc, CelInput, CelResult, celEnv, parse, plan } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';

/**
 * A CEL environment shaped like the one the kube-apiserver gives `x-kubernetes-validations` rules
 * (k8s.io/apiserver/pkg/cel/environment/base.go), on @bufbuild/cel, a conformant CEL implementation:
 * the standard library, RE2 `matches`, and the cel-go strings extension (`split`, `join`, `lowerAscii`, ...),
 * which @bufbuild/cel ships as `@bufbuild/cel/ext`.
 *
 * Kubernetes adds further libraries (lists, regex `find`, `quantity()`, `ip()`, `cidr()`, `url()`, authz, sets,
 * semver, `cel.bind`). No rule of this project uses them, so they are not registered; a rule that calls one fails
 * to compile here with {@link UnsupportedCelFunctionError}, naming the function to register with `celFunc` /
 * `celMethod` in {@link KUBERNETES_LIBRARY_FUNCTIONS} (rather than rewriting the rule by hand).
 */

/** Functions Kubernetes provides that the CEL standard library and @bufbuild/cel's extensions lack. */
const KUBERNETES_LIBRARY_FUNCTIONS: CelFunc[] = [];

const environment = celEnv({ funcs: [...strings, ...KUBERNETES_LIBRARY_FUNCTIONS] });

/** Operators the @bufbuild/cel planner evaluates itself rather than through the function resolver. */
const PLANNER_OPERATORS = new Set(['_&&_', '_||_', '_?_:_', '_[_]', '_[?_]', '_?._', '@not_strictly_false', '__not_strictly_false__']);

/** A rule calls a function the offline environment does not provide (see the module comment). */
export class UnsupportedCelFunctionError extends Error {
  constructor(
    public readonly expression: string,
    public readonly functionName: string,
  ) {
    super(
      `CEL expression ${JSON.stringify(expression)} calls ${functionName}(), which the offline Kubernetes CEL environment ` +
        'does not provide: register it in KUBERNETES_LIBRARY_FUNCTIONS (src/api/validation/kubernetes-cel-environment.ts)',
    );
    this.name = 'UnsupportedCelFunctionError';
  }
}

export interface CompiledCelExpression {
  readonly source: string;
  /** Whether the expression reads `oldSelf`, which makes a rule a transition rule (evaluated on update only). */
  readonly readsOldSelf: boolean;
  evaluate(bindings: { self: CelInput; oldSelf?: CelInput }): CelResult;
}

interface AstFacts {
  readonly functions: Set<string>;
  readonly identifiers: Set<string>;
}

/** Collects the functions and identifiers a parsed expression uses (the AST is plain protobuf-es messages). */
function collectAstFacts(node: unknown, facts: AstFacts = { functions: new Set(), identifiers: new Set() }): AstFacts {
  if (!node || typeof node !== 'object') return facts;
  const record = node as Record<string, unknown>;
  if (record.case === 'callExpr') facts.functions.add((record.value as { function: string }).function);
  if (record.case === 'identExpr') facts.identifiers.add((record.value as { name: string }).name);
  for (const child of Object.values(record)) {
    if (Array.isArray(child)) child.forEach((item) => collectAstFacts(item, facts));
    else if (child && typeof child === 'object') collectAstFacts(child, facts);
  }
  return facts;
}

/** Parses and plans a CEL expression once; throws on a syntax error or a function the environment lacks. */
export function compileCelExpression(source: string): CompiledCelExpression {
  const parsed = parse(source);
  const facts = collectAstFacts(parsed.expr);
  for (const name of facts.functions) {
    if (!PLANNER_OPERATORS.has(name) && !environment.funcs.find(name)) throw new UnsupportedCelFunctionError(source, name);
  }
  const program = plan(environment, parsed);
  return {
    source,
    readsOldSelf: facts.identifiers.has('oldSelf'),
    evaluate: (bindings) => program(bindings as never),
  };
}
