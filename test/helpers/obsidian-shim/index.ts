/**
 * Loads a built main.js the way Obsidian does (CommonJS, `require('obsidian')` answered
 * by the app) inside plain Node: happy-dom provides the DOM, the shim provides `obsidian`,
 * and a ResourceTracker records what the plugin holds on to.
 */
import Module from 'node:module';
import { dirname } from 'node:path';
import * as fakeIndexedDb from 'fake-indexeddb';
import { Window } from 'happy-dom';
import { installDomHelpers } from './dom-helpers';
import { createObsidianApi } from './obsidian-api';
import type { ObsidianApi, RequestUrlParam, ShimContext, ShimFetchAnswer } from './obsidian-api';
import { ResourceTracker } from './resource-tracker';

export type {
  AppShimInstance,
  ObsidianApi,
  RequestUrlParam,
  ShimFetchAnswer,
} from './obsidian-api';
export { ResourceTracker } from './resource-tracker';

/** Browser globals (besides element classes) that Svelte's runtime and the plugin read. */
const BROWSER_GLOBALS = [
  'window',
  'document',
  'navigator',
  'Node',
  'Element',
  'Text',
  'Comment',
  'DocumentFragment',
  'Event',
  'EventTarget',
  'CustomEvent',
  'MouseEvent',
  'KeyboardEvent',
  'MutationObserver',
  'getComputedStyle',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'activeWindow',
] as const;

export interface ObsidianEnvironment {
  window: Window;
  api: ObsidianApi;
  tracker: ResourceTracker;
  /** Every module the bundle asked `require` for, in order. */
  required: string[];
  /** Evaluates a CommonJS bundle with `require('obsidian')` answered by the shim. */
  loadBundle(source: string, filename: string): Record<string, unknown>;
  close(): Promise<void>;
}

export function createObsidianEnvironment(
  fetch: (request: RequestUrlParam) => Promise<ShimFetchAnswer>,
): ObsidianEnvironment {
  const window = new Window({ url: 'app://obsidian.md/index.html' });
  const globalScope = globalThis as Record<string, unknown>;
  const saved = new Map<string, PropertyDescriptor | undefined>();
  // Every element class too: Svelte's runtime checks `instanceof HTMLMediaElement` and friends.
  const elementClasses = Object.getOwnPropertyNames(window).filter((name) =>
    /^(HTML|SVG)[A-Za-z]*Element$/.test(name),
  );
  for (const name of new Set<string>([...BROWSER_GLOBALS, ...elementClasses])) {
    saved.set(name, Object.getOwnPropertyDescriptor(globalThis, name));
    const value =
      name === 'window' || name === 'activeWindow'
        ? window
        : (window as unknown as Record<string, unknown>)[name];
    Object.defineProperty(globalThis, name, {
      value: typeof value === 'function' && /^[a-z]/.test(name) ? value.bind(window) : value,
      configurable: true,
      writable: true,
    });
  }
  // Obsidian's Electron window has IndexedDB; happy-dom does not. A fresh one per environment.
  // idb checks `instanceof IDBDatabase` and friends, so the classes are globals too.
  const storage: Record<string, unknown> = {
    ...Object.fromEntries(Object.entries(fakeIndexedDb).filter(([name]) => name.startsWith('IDB'))),
    indexedDB: new fakeIndexedDb.IDBFactory(),
  };
  for (const [name, value] of Object.entries(storage)) {
    saved.set(name, Object.getOwnPropertyDescriptor(globalThis, name));
    Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  }
  const uninstallHelpers = installDomHelpers(
    window as unknown as Parameters<typeof installDomHelpers>[0],
  );

  const tracker = new ResourceTracker();
  tracker.trackTimers(window as unknown as Parameters<ResourceTracker['trackTimers']>[0]);
  for (const owner of listenerOwners([
    window.document.createElement('div'),
    window.document,
    window,
  ])) {
    tracker.trackDomListeners(owner);
  }

  const context: ShimContext = { document: window.document as unknown as Document, tracker, fetch };
  const api = createObsidianApi(context);
  const required: string[] = [];

  const loadBundle = (source: string, filename: string): Record<string, unknown> => {
    const moduleInternals = Module as unknown as {
      _load: (request: string, parent: unknown, isMain: boolean) => unknown;
      _nodeModulePaths: (from: string) => string[];
    };
    const originalLoad = moduleInternals._load;
    moduleInternals._load = function (request, parent, isMain) {
      required.push(request);
      if (request === 'obsidian') return api.module;
      return originalLoad.call(this, request, parent, isMain);
    };
    try {
      const bundle = new Module(filename) as Module & {
        _compile(source: string, filename: string): void;
        exports: Record<string, unknown>;
      };
      bundle.filename = filename;
      bundle.paths = moduleInternals._nodeModulePaths(dirname(filename));
      bundle._compile(source, filename);
      return bundle.exports;
    } finally {
      moduleInternals._load = originalLoad;
    }
  };

  const close = async () => {
    tracker.stop();
    uninstallHelpers();
    for (const [name, descriptor] of saved) {
      // IndexedDB stays: a request the unloaded plugin opened may still complete on a later
      // turn and reach for IDBRequest; the fake's classes are harmless to the next test.
      if (name in storage) continue;
      if (descriptor) Object.defineProperty(globalScope, name, descriptor);
      else delete globalScope[name];
    }
    await window.happyDOM.close();
  };

  return { window, api, tracker, required, loadBundle, close };
}

/**
 * The prototypes that actually define addEventListener for these targets. happy-dom gives
 * each window its own subclasses, so `window.EventTarget.prototype` is not necessarily
 * where an element's addEventListener comes from.
 */
function listenerOwners(targets: object[]): EventTarget[] {
  const owners = new Set<EventTarget>();
  for (const target of targets) {
    let proto: object | null = target;
    while (proto && !Object.prototype.hasOwnProperty.call(proto, 'addEventListener')) {
      proto = Object.getPrototypeOf(proto) as object | null;
    }
    if (proto) owners.add(proto as EventTarget);
  }
  return [...owners];
}
