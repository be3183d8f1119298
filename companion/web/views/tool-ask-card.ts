import { isRecord } from '../../../shared/protocol/json';
import type { CompanionApi } from '../api-client';
import { describeError, el } from '../dom';

/*
 * The ask card (docs/tools.md): the chat wants to run a tool that needs the user's yes. It shows
 * the exact call (tool, where it comes from, its arguments) and why the model wants it, with
 * Allow once, Allow for this conversation and Deny; the answer goes to
 * `POST /api/v1/tools/asks/:id` and the chat, which waited, goes on. `high` tools ask every
 * time, so they get no "for this conversation".
 */

const DANGER_LABEL: Record<string, string> = {
  low: 'Reads only',
  medium: 'Changes notes (Undo can revert)',
  high: 'Can change things Cairn cannot undo',
};

export function toolAskCard(ask: Record<string, unknown>, api: CompanionApi): HTMLElement {
  const id = typeof ask.id === 'string' ? ask.id : '';
  const tool = typeof ask.tool === 'string' ? ask.tool : 'a tool';
  const source = typeof ask.source === 'string' ? ask.source : 'cairn';
  const danger = typeof ask.danger === 'string' ? ask.danger : 'high';
  const reason = typeof ask.reason === 'string' ? ask.reason : '';
  const expires = typeof ask.expires_at === 'string' ? Date.parse(ask.expires_at) : NaN;
  const args = JSON.stringify(isRecord(ask.args) ? ask.args : (ask.args ?? {}), null, 2);

  const status = el('p', { class: 'ask-status', role: 'status' });
  const buttons: HTMLButtonElement[] = [];
  const choice = (label: string, decision: string, tone: string) => {
    const button = el('button', { type: 'button', class: tone }, label);
    button.addEventListener('click', () => void answer(decision, label));
    buttons.push(button);
    return button;
  };
  const card = el(
    'section',
    { class: `ask-card danger-${danger}`, 'aria-label': `Allow ${tool}?` },
    el('p', { class: 'ask-title' }, 'Cairn wants to run a tool'),
    el(
      'p',
      { class: 'ask-tool' },
      el('code', {}, tool),
      el('span', { class: 'ask-badge' }, source === 'cairn' ? 'Cairn' : `MCP: ${source}`),
      el('span', { class: `ask-badge danger` }, DANGER_LABEL[danger] ?? danger),
    ),
    reason === '' ? null : el('p', { class: 'ask-reason' }, el('strong', {}, 'Why: '), reason),
    el('pre', { class: 'ask-args', 'aria-label': 'Arguments' }, args),
    Number.isFinite(expires)
      ? el(
          'p',
          { class: 'ask-expiry muted' },
          `Not answered by ${new Date(expires).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}, it will not run.`,
        )
      : null,
    el(
      'div',
      { class: 'ask-actions' },
      choice('Allow once', 'allow_once', 'primary'),
      danger === 'high'
        ? null
        : choice('Allow for this conversation', 'allow_conversation', 'ghost'),
      choice('Deny', 'deny', 'ghost deny'),
    ),
    status,
  );

  async function answer(decision: string, label: string): Promise<void> {
    for (const button of buttons) button.disabled = true;
    status.textContent = 'Sending…';
    try {
      await api.post(`/api/v1/tools/asks/${encodeURIComponent(id)}`, { decision });
      status.textContent = decision === 'deny' ? 'Denied.' : `${label}: running…`;
      card.classList.add('answered');
    } catch (error) {
      status.textContent = `Could not answer: ${describeError(error)}`;
      for (const button of buttons) button.disabled = false;
    }
  }
  return card;
}

/** The phone page's list of tools and their permissions (admin tokens only). */
export async function fillToolList(list: HTMLElement, api: CompanionApi): Promise<void> {
  list.replaceChildren(el('li', { class: 'notice muted' }, 'Loading tools…'));
  let tools: Array<Record<string, unknown>>;
  try {
    const body = await api.get<{ tools?: unknown }>('/api/v1/tools');
    tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : [];
  } catch (error) {
    list.replaceChildren(
      el(
        'li',
        { class: 'notice muted' },
        `Tool settings need a token with the admin scope (${describeError(error)}).`,
      ),
    );
    return;
  }
  list.replaceChildren(
    ...tools.map((tool) => {
      const name = String(tool.name);
      const select = el('select', { 'aria-label': `Permission for ${name}` });
      for (const option of ['allow', 'ask', 'deny']) {
        const item = el('option', { value: option }, option[0]?.toUpperCase() + option.slice(1));
        if (tool.permission === option) item.selected = true;
        select.append(item);
      }
      select.addEventListener('change', () => {
        void api
          .patch(`/api/v1/tools/${encodeURIComponent(name)}`, { permission: select.value })
          .catch(() => undefined);
      });
      return el(
        'li',
        { class: 'tool-row' },
        el(
          'div',
          { class: 'tool-row-text' },
          el('code', {}, name),
          el(
            'span',
            { class: 'muted' },
            `${tool.source === 'cairn' ? 'Cairn' : `MCP: ${String(tool.source)}`} · ${String(tool.danger)}${tool.requires_network === true ? ' · internet' : ''}${tool.enabled === false ? ' · off' : ''}${tool.always_asks === true ? ' · always asks' : ''}`,
          ),
        ),
        select,
      );
    }),
  );
}
