import { Plugin } from 'obsidian';

/** Composition root: wires adapters to domain services. Lifecycle only; no logic lives here. */
export default class CairnPlugin extends Plugin {
  override async onload(): Promise<void> {}
}
