import * as nodeModule from 'node:module';
import { join } from 'node:path';

interface NativeModuleClass {
  new (id: string): { filename: string; paths: string[]; require(request: string): unknown };
  _nodeModulePaths(from: string): string[];
}

/**
 * Loads a package with Node's own `require`, outside jest's module sandbox.
 *
 * Why: @kubernetes/client-node 1.x is ESM-only. Node 20 can `require()` it, but jest's CommonJS runtime cannot
 * (and its `module.createRequire` is sandboxed as well). `Module.prototype.require` is inherited unchanged by
 * jest's `module` shim, so a fresh native Module instance gives real Node resolution and loading. e2e tests use it
 * through `jest.mock('@kubernetes/client-node', () => nativeRequire(...))`.
 */
export function nativeRequire(request: string): unknown {
  const NativeModule = (nodeModule as unknown as { Module: NativeModuleClass }).Module;
  const anchor = join(__dirname, 'native-require-anchor.js');
  const loader = new NativeModule(anchor);
  loader.filename = anchor;
  loader.paths = NativeModule._nodeModulePaths(__dirname);
  return loader.require(request);
}
