/**
 * A chat turn with images (docs/plugin.md): the user's text and images go to the Ollama vision
 * model (`/api/chat` with `messages[].images`, base64). When the text asks something, the vault's
 * best passages for it go along as numbered context; if the answer cites them, they come back
 * as citations. The turn is kept in the chat file like any other, each image noted by name.
 * Events follow shared/protocol/chat.ts, so the session shows them as it shows the engine's.
 */
import {
  finishTurn,
  type ChatTurnOptions,
  type ConversationSink,
} from '../../shared/chat/chat-engine';
import { CitationMarkerFilter } from '../../shared/chat/citation-markers';
import { withImageNotes } from '../../shared/chat/conversation-file';
import type { OllamaHttp } from '../../shared/chat/ollama-http';
import { OllamaPhraser } from '../../shared/chat/ollama-phraser';
import type { Answerer } from '../../shared/chat/ports';
import type { Clock } from '../../shared/ports';
import type { ChatEvent } from '../../shared/protocol/chat';
import type { Citation } from '../../shared/protocol/citation';
import { imageBase64, type ChatImage } from './chat-images';

export interface VisionModel {
  baseUrl: string;
  model: string;
}

export interface VisionChatDeps {
  http: OllamaHttp;
  /** The vision model, or why images cannot be sent (read per message: settings may change). */
  model: () => VisionModel | { refused: string };
  /** The vault's passages for the text; absent or failing, the images are asked about alone. */
  answerer?: Answerer;
  conversations?: ConversationSink;
  clock: Clock;
  timeoutMs?: number;
}

/** Asked when the message is only images. */
const DESCRIBE = 'Describe this image.';

export class VisionChat {
  constructor(private readonly deps: VisionChatDeps) {}

  /** Why a message with images would be refused now, or undefined when it can go. */
  refusal(): string | undefined {
    const model = this.deps.model();
    return 'refused' in model ? model.refused : undefined;
  }

  async *send(
    message: string,
    images: readonly ChatImage[],
    options: ChatTurnOptions = {},
  ): AsyncGenerator<ChatEvent> {
    const model = this.deps.model();
    if ('refused' in model) {
      yield { type: 'error', error: { code: 'UNPROCESSABLE', message: model.refused } };
      return;
    }
    const at = this.deps.clock.now();
    const question = message.trim();
    const passages = question === '' ? [] : await this.passages(question);
    const phraser = new OllamaPhraser({
      http: this.deps.http,
      ...model,
      ...(this.deps.timeoutMs === undefined ? {} : { timeoutMs: this.deps.timeoutMs }),
    });
    const markers = new CitationMarkerFilter(passages.length);
    let assistant = '';
    try {
      const stream = phraser.phrase({
        question: question === '' ? DESCRIBE : question,
        passages,
        images: await Promise.all(images.map((image) => imageBase64(image.blob))),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      for await (const piece of stream) {
        const shown = markers.push(piece);
        assistant += shown;
        if (shown !== '') yield { type: 'token', text: shown };
      }
      const rest = markers.flush();
      assistant += rest;
      if (rest !== '') yield { type: 'token', text: rest };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      yield {
        type: 'error',
        error: { code: 'UNAVAILABLE', message: `${model.model} could not answer: ${reason}` },
      };
      return;
    }
    // Numbers in the text point into the whole list, so it is kept whole when any is cited.
    const citations: Citation[] = markers.cited.size > 0 ? passages : [];
    if (citations.length > 0) yield { type: 'citations', citations };
    const user = withImageNotes(
      message,
      images.map((image) => image.name),
    );
    yield await finishTurn(this.deps.conversations, options, { at, user, assistant, citations });
  }

  private async passages(question: string): Promise<Citation[]> {
    if (this.deps.answerer === undefined) return [];
    try {
      return (await this.deps.answerer.answer({ question })).citations;
    } catch {
      // The search may still be starting: the images are answered without the vault.
      return [];
    }
  }
}
