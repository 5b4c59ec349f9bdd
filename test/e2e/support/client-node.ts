import * as nodeModule from 'node:module';
import { join } from 'node:path';
import type * as ClientNode from '@kubernetes/client-node';

interface NativeModuleClass {
  new (id: string): { filename: string; paths: string[]; require(request: string): unknown };
  _nodeModulePaths(from: string): string[];
}

/**
 * @kubernetes/client-node 1.x is ESM-only. Node 20.19+ can `require()` it, but jest's CommonJS runtime cannot
 * (nor can its sandboxed `module.createRequire`). A fresh instance of Node's own `Module` class (jest's shim
 * inherits its `require` unchanged) loads it with real Node resolution, outside the sandbox.
 * Values come from here; types can be imported from '@kubernetes/client-node' as usual (`import type`).
 */
function loadClientNode(): typeof ClientNode {
  const NativeModule = (nodeModule as unknown as { Module: NativeModuleClass }).Module;
  const anchor = join(__dirname, 'client-node-anchor.js');
  const loader = new NativeModule(anchor);
  loader.filename = anchor;
  loader.paths = NativeModule._nodeModulePaths(__dirname);
  return loader.require('@kubernetes/client-node') as typeof ClientNode;
}

/** The @kubernetes/client-node module, usable from jest tests: `new k8s.KubeConfig()`, `k8s.CoreV1Api`, ... */
export const k8s: typeof ClientNode = loadClientNode();
