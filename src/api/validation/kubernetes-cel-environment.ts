import { CelFunc, CelInput, CelResult, celEnv, parse, plan } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { RE2JS } from '@bufbuild/re2';

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

/**
 * The same RE2 engine @bufbuild/cel uses for `matches`, with each pattern compiled once: the built-in compiles it
 * on every call, which doubled the cost of `self.all(key, key.matches(...))` per map key.
 */
const compiledPatterns = new Map<string, RE2JS>();
/** Patterns normally come from the CRD's rules; the bound keeps a rule matching against data from growing it forever. */
const MAX_CACHED_PATTERNS = 256;
const cachingRe2 = {
  compile(pattern: string): RE2JS {
    let compiled = compiledPatterns.get(pattern);
    if (!compiled) {
      compiled = RE2JS.compile(pattern);
      if (compiledPatterns.size >= MAX_CACHED_PATTERNS) compiledPatterns.clear();
      compiledPatterns.set(pattern, compiled);
    }
    return compiled;
  },
};

const environment = celEnv({ funcs: [...strings, ...KUBERNETES_LIBRARY_FUNCTIONS], re2: cachingRe2 });

/** Operators the @bufbuild/cel planner evaluates itself rather than through the function resolver. */
const PLANNER_OPERATORS = new Set(['_&&_', '_||_', '_?_:_', '_[_]', '_[?_]', '_?._', '@not_strictly_false', '__not_strictly_false__']);

/** A rule calls functions the offline environment does not provide (see the module comment). */
export class UnsupportedCelFunctionError extends Error {
  constructor(
    public readonly expression: string,
    public readonly functionNames: readonly string[],
  ) {
    super(
      `CEL expression ${JSON.stringify(expression)} calls ${functionNames.map((name) => `${name}()`).join(', ')}, which the offline ` +
        'Kubernetes CEL environment does not provide: register them in KUBERNETES_LIBRARY_FUNCTIONS (src/api/validation/kubernetes-cel-environment.ts)',
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
  const missing = [...facts.functions].filter((name) => !PLANNER_OPERATORS.has(name) && !environment.funcs.find(name)).sort();
  if (missing.length > 0) throw new UnsupportedCelFunctionError(source, missing);
  const program = plan(environment, parsed);
  return {
    source,
    readsOldSelf: facts.identifiers.has('oldSelf'),
    evaluate: (bindings) => program(bindings as never),
  };
}
