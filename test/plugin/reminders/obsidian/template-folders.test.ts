import { EditorSelection, EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import type { App } from 'obsidian';
import { editorInfoField } from 'obsidian-test-mocks/obsidian';
import { afterEach, describe, expect, it } from 'vitest';
import { remindEditorExtension } from '../../../../plugin/reminders/editor/remind-extension';
import {
  editorIsTemplate,
  templateFolders,
} from '../../../../plugin/reminders/obsidian/template-folders';
import { ManualClock } from '../../../fakes/clock';

/** An app whose core Templates plugin and Templater are set up as Obsidian holds them. */
function appWith(options: { core?: string | null; templater?: string }): App {
  return {
    internalPlugins: {
      getEnabledPluginById: (id: string) =>
        id === 'templates' && options.core !== null && options.core !== undefined
          ? { options: { folder: options.core } }
          : null,
    },
    plugins: {
      plugins:
        options.templater === undefined
          ? {}
          : { 'templater-obsidian': { settings: { templates_folder: options.templater } } },
    },
  } as unknown as App;
}

const views: EditorView[] = [];
afterEach(() => {
  for (const view of views.splice(0)) view.destroy();
});

/** An editor on `path` with the extension configured as reminder-setup.ts does. */
function editorOn(path: string, app: App, doc: string): EditorView {
  const clock = ManualClock.at('2026-11-23T08:00:00Z');
  const view = new EditorView({
    state: EditorState.create({
      doc,
      selection: EditorSelection.cursor(3),
      extensions: [
        editorInfoField.init(() => ({ app, file: { path }, hoverPopover: null }) as never),
        remindEditorExtension({
          now: () => clock.now(),
          zone: () => 'Europe/Berlin',
          newBlockId: () => '^r-new1',
          isTemplate: editorIsTemplate(app),
          createLabel: () => document.createElement('span'),
        }),
      ],
    }),
    parent: document.body.appendChild(document.createElement('div')),
  });
  views.push(view);
  return view;
}

async function leaveFirstLine(view: EditorView): Promise<string> {
  view.dispatch({ selection: EditorSelection.cursor(view.state.doc.line(2).from) });
  await Promise.resolve();
  await Promise.resolve();
  return view.state.doc.line(1).text;
}

describe('@remind in templates', () => {
  const typed = '- [ ] Weekly review @remind(tomorrow 9am)\nnext';

  it('reads the core Templates folder (when enabled) and Templater’s', () => {
    expect(templateFolders(appWith({ core: '/Templates/', templater: 'Meta/Templater' }))).toEqual([
      'Templates',
      'Meta/Templater',
    ]);
    expect(templateFolders(appWith({ core: null, templater: '' }))).toEqual([]);
    expect(templateFolders({} as App)).toEqual([]);
  });

  it('is never normalised in the core Templates folder or in Templater’s', async () => {
    const app = appWith({ core: 'Templates', templater: 'Meta/Templater' });
    expect(await leaveFirstLine(editorOn('Templates/Daily.md', app, typed))).toBe(
      '- [ ] Weekly review @remind(tomorrow 9am)',
    );
    expect(await leaveFirstLine(editorOn('Meta/Templater/Week.md', app, typed))).toBe(
      '- [ ] Weekly review @remind(tomorrow 9am)',
    );
  });

  it('is still normalised in a note outside them (a folder merely starting alike)', async () => {
    const app = appWith({ core: 'Templates' });
    expect(await leaveFirstLine(editorOn('Templates old/Daily.md', app, typed))).toBe(
      '- [ ] Weekly review @remind(2026-11-24 09:00) ^r-new1',
    );
  });
});
