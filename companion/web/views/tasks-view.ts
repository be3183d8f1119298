import { noteDeepLink } from '../../../shared/reminders/deep-link';
import type { InvalidTask, Task, TaskListResponse, TaskRun } from '../../../shared/protocol/tasks';
import { describeTaskSchedule } from '../../../shared/tasks/schedule-words';
import { byId, describeError, el, formatWhen, noticeItem } from '../dom';
import type { PageContext, PageView } from './page-context';

/*
 * Scheduled tasks (docs/tasks.md) on the phone: each task with its schedule in words, its next
 * run, whether it is on, and its last run (status, when, the first line, a link to the runs
 * note). The switch turns a task on or off through `PATCH /api/v1/tasks/:id { enabled }`,
 * which writes `enabled:` into the task's note. Task files that cannot run are listed with the
 * field and line to fix. Tasks are made in chat, in Obsidian, or by writing the note.
 */

const STATUS_WORDS: Readonly<Record<TaskRun['status'], string>> = {
  running: 'Running',
  succeeded: 'Done',
  failed: 'Failed',
  skipped: 'Skipped',
};

export function tasksView(context: PageContext): PageView {
  const list = byId<HTMLUListElement>('tasks-list');
  const invalidCard = byId<HTMLElement>('tasks-invalid-card');
  const invalidList = byId<HTMLUListElement>('tasks-invalid');

  async function show(): Promise<void> {
    const api = context.api();
    if (!api) return;
    try {
      const body = await api.get<TaskListResponse>('/api/v1/tasks');
      list.replaceChildren(
        ...(body.tasks.length > 0
          ? body.tasks.map(taskRow)
          : [
              noticeItem(
                'No scheduled tasks. Ask in Chat, e.g. “every Friday at 5pm tell me what I wrote about the house”.',
              ),
            ]),
      );
      invalidCard.hidden = body.invalid.length === 0;
      invalidList.replaceChildren(...body.invalid.map(invalidRow));
    } catch (error) {
      list.replaceChildren(noticeItem(`Could not load tasks: ${describeError(error)}`, 'error'));
      invalidCard.hidden = true;
    }
  }

  function scheduleText(task: Task): string {
    const words = describeTaskSchedule(task.schedule);
    const sentence = words.charAt(0).toUpperCase() + words.slice(1);
    // The task's own zone matters when it is not the phone's ("every Monday at 08:00" where?).
    return task.timezone === context.zone() ? sentence : `${sentence} (${task.timezone})`;
  }

  function nextText(task: Task): { text: string; tone: string } {
    if (!task.enabled) return { text: 'Off', tone: 'off' };
    if (task.next_run === null) return { text: 'No next run', tone: 'off' };
    return { text: `Next: ${formatWhen(task.next_run)}`, tone: '' };
  }

  function lastRun(task: Task): HTMLElement {
    const run = task.last_run;
    if (run === null) return el('span', { class: 'task-last muted' }, 'Not run yet');
    const link = el(
      'a',
      { class: 'task-output', href: noteDeepLink(context.vault(), task.output) },
      task.output.replace(/^.*\//, '').replace(/\.md$/i, ''),
    );
    const said = run.status === 'failed' || run.status === 'skipped' ? run.reason : run.summary;
    return el(
      'span',
      { class: 'task-last' },
      el(
        'span',
        { class: `task-status ${run.status}` },
        `${STATUS_WORDS[run.status]} ${formatWhen(run.started_at)}`,
      ),
      said ? el('span', { class: 'task-said', title: said }, said) : null,
      run.output_path === null ? null : link,
    );
  }

  function taskRow(task: Task): HTMLLIElement {
    const toggle = el('input', {
      type: 'checkbox',
      role: 'switch',
      class: 'switch',
      'aria-label': `${task.name} on`,
      title: task.enabled ? 'On: tap to turn off' : 'Off: tap to turn on',
    });
    toggle.checked = task.enabled;
    const next = nextText(task);
    const item = el(
      'li',
      { class: 'task-row', 'data-id': task.id },
      el(
        'div',
        { class: 'task-body' },
        el(
          'a',
          { class: 'title', href: noteDeepLink(context.vault(), task.path), title: task.path },
          task.name,
        ),
        el('span', { class: 'detail' }, scheduleText(task)),
        el('span', { class: `when ${next.tone}`.trim() }, next.text),
        lastRun(task),
      ),
      toggle,
    );
    toggle.addEventListener('change', () => void setEnabled(task, toggle, item));
    return item;
  }

  async function setEnabled(
    task: Task,
    toggle: HTMLInputElement,
    item: HTMLLIElement,
  ): Promise<void> {
    const api = context.api();
    if (!api) return;
    const enabled = toggle.checked;
    toggle.disabled = true;
    try {
      const updated = await api.patch<Task>(`/api/v1/tasks/${encodeURIComponent(task.id)}`, {
        enabled,
      });
      item.replaceWith(taskRow(updated));
      context.say(
        updated.enabled
          ? `${updated.name} is on${updated.next_run ? `; next ${formatWhen(updated.next_run)}` : ''}.`
          : `${updated.name} is off. It stays in your vault; nothing runs until you turn it on.`,
      );
    } catch (error) {
      toggle.checked = !enabled;
      toggle.disabled = false;
      context.say(
        `Could not turn ${task.name} ${enabled ? 'on' : 'off'}: ${describeError(error)}`,
        'error',
      );
    }
  }

  function invalidRow(task: InvalidTask): HTMLLIElement {
    const first = task.problems[0];
    return el(
      'li',
      { class: 'task-row invalid', 'data-id': task.id },
      el(
        'div',
        { class: 'task-body' },
        el('span', { class: 'title' }, task.name),
        ...task.problems.map((problem) =>
          el(
            'span',
            { class: 'detail' },
            `Line ${problem.line}, ${problem.field}: ${problem.message}`,
          ),
        ),
        el(
          'a',
          { class: 'where', href: noteDeepLink(context.vault(), task.path) },
          first ? `${task.path}:${first.line}` : task.path,
        ),
      ),
    );
  }

  return {
    show,
    reset(): void {
      list.replaceChildren();
      invalidList.replaceChildren();
      invalidCard.hidden = true;
    },
  };
}
