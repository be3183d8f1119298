/**
 * The DOM conveniences Obsidian adds to every element (createDiv, empty, setText, …),
 * installed on a happy-dom window's prototypes. Only what plugin code and the shim use;
 * each behaves as Obsidian documents it.
 */

export interface DomElementInfo {
  cls?: string | string[];
  text?: string;
  attr?: Record<string, string | number | boolean | null>;
  title?: string;
  type?: string;
  placeholder?: string;
  value?: string;
}

type ElementOptions = DomElementInfo | string | undefined;

interface HelperWindow {
  HTMLElement: { prototype: object };
  Node: { prototype: object };
  document: Document;
}

function applyOptions(el: HTMLElement, options: ElementOptions): void {
  if (options === undefined) return;
  const info: DomElementInfo = typeof options === 'string' ? { cls: options } : options;
  const classes = Array.isArray(info.cls) ? info.cls : info.cls ? info.cls.split(' ') : [];
  for (const cls of classes) if (cls) el.classList.add(cls);
  if (info.text !== undefined) el.textContent = info.text;
  if (info.title !== undefined) el.title = info.title;
  for (const key of ['type', 'placeholder', 'value'] as const) {
    if (info[key] !== undefined) el.setAttribute(key, info[key]);
  }
  for (const [name, value] of Object.entries(info.attr ?? {})) {
    if (value === null || value === false) el.removeAttribute(name);
    else el.setAttribute(name, String(value));
  }
}

/** Installs the helpers; returns a function that removes exactly what it added. */
export function installDomHelpers(win: HelperWindow): () => void {
  const doc = win.document;
  const createEl = (
    parent: Node | null,
    tag: string,
    options?: ElementOptions,
    callback?: (el: HTMLElement) => void,
  ): HTMLElement => {
    const el = doc.createElement(tag);
    applyOptions(el, options);
    parent?.appendChild(el);
    callback?.(el);
    return el;
  };

  const elementMethods: Record<string, unknown> = {
    createEl(
      this: HTMLElement,
      tag: string,
      options?: ElementOptions,
      cb?: (el: HTMLElement) => void,
    ) {
      return createEl(this, tag, options, cb);
    },
    createDiv(this: HTMLElement, options?: ElementOptions, cb?: (el: HTMLElement) => void) {
      return createEl(this, 'div', options, cb);
    },
    createSpan(this: HTMLElement, options?: ElementOptions, cb?: (el: HTMLElement) => void) {
      return createEl(this, 'span', options, cb);
    },
    empty(this: HTMLElement) {
      while (this.firstChild) this.removeChild(this.firstChild);
    },
    detach(this: HTMLElement) {
      this.parentNode?.removeChild(this);
    },
    addClass(this: HTMLElement, ...classes: string[]) {
      this.classList.add(...classes);
    },
    removeClass(this: HTMLElement, ...classes: string[]) {
      this.classList.remove(...classes);
    },
    toggleClass(this: HTMLElement, classes: string | string[], value: boolean) {
      for (const cls of Array.isArray(classes) ? classes : [classes])
        this.classList.toggle(cls, value);
    },
    hasClass(this: HTMLElement, cls: string) {
      return this.classList.contains(cls);
    },
    setText(this: HTMLElement, text: string) {
      this.textContent = text;
    },
    setAttr(this: HTMLElement, name: string, value: string | number | boolean | null) {
      if (value === null || value === false) this.removeAttribute(name);
      else this.setAttribute(name, String(value));
    },
    show(this: HTMLElement) {
      this.style.display = '';
    },
    hide(this: HTMLElement) {
      this.style.display = 'none';
    },
    toggle(this: HTMLElement, show: boolean) {
      this.style.display = show ? '' : 'none';
    },
    isShown(this: HTMLElement) {
      return this.style.display !== 'none';
    },
  };

  const proto = win.HTMLElement.prototype as Record<string, unknown>;
  const added: string[] = [];
  for (const [name, method] of Object.entries(elementMethods)) {
    if (name in proto) continue;
    Object.defineProperty(proto, name, { value: method, configurable: true, writable: true });
    added.push(name);
  }
  // Obsidian gives fragments (createFragment) the create* helpers too.
  const fragmentProto = doc.createDocumentFragment().constructor.prototype as Record<
    string,
    unknown
  >;
  const fragmentAdded: string[] = [];
  for (const name of ['createEl', 'createDiv', 'createSpan']) {
    if (name in fragmentProto) continue;
    Object.defineProperty(fragmentProto, name, {
      value: elementMethods[name as keyof typeof elementMethods],
      configurable: true,
      writable: true,
    });
    fragmentAdded.push(name);
  }

  const globals: Record<string, unknown> = {
    createEl: (tag: string, options?: ElementOptions, cb?: (el: HTMLElement) => void) =>
      createEl(null, tag, options, cb),
    createDiv: (options?: ElementOptions, cb?: (el: HTMLElement) => void) =>
      createEl(null, 'div', options, cb),
    createSpan: (options?: ElementOptions, cb?: (el: HTMLElement) => void) =>
      createEl(null, 'span', options, cb),
    createFragment: (cb?: (fragment: DocumentFragment) => void) => {
      const fragment = doc.createDocumentFragment();
      cb?.(fragment);
      return fragment;
    },
    activeDocument: doc,
  };
  const globalScope = globalThis as Record<string, unknown>;
  const previous = new Map(Object.keys(globals).map((key) => [key, globalScope[key]]));
  Object.assign(globalScope, globals);

  return () => {
    for (const name of added) delete proto[name];
    for (const name of fragmentAdded) delete fragmentProto[name];
    for (const [key, value] of previous) {
      if (value === undefined) delete globalScope[key];
      else globalScope[key] = value;
    }
  };
}
