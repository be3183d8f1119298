/**
 * Images pasted or dropped onto the chat composer: which are accepted (png, jpeg, webp, gif; at
 * most IMAGE_MAX_BYTES each, IMAGE_MAX_COUNT per message), what a pasted one is called, and the
 * base64 Ollama's `/api/chat` wants (`messages[].images`). No `obsidian`, no Svelte.
 */

/** An image attached to a message: its name (shown, and noted in the chat file) and bytes. */
export interface ChatImage {
  name: string;
  blob: Blob;
}

export const IMAGE_TYPES: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
};
export const IMAGE_MAX_BYTES = 10 * 1024 * 1024;
export const IMAGE_MAX_COUNT = 4;

/** What the pane says when a message with images cannot go to a vision model. */
export const NO_VISION_MODEL =
  'Images need a vision model: set Ollama vision model in Cairn settings.';

/**
 * Takes the files offered (paste or drop) onto `attached`: the images that fit, and one message
 * per file refused, naming the file and the limit it broke.
 */
export function acceptImages(
  offered: readonly File[],
  attached: number,
  pastedSerial: () => number,
): { accepted: ChatImage[]; refused: string[] } {
  const accepted: ChatImage[] = [];
  const refused: string[] = [];
  for (const file of offered) {
    const extension = IMAGE_TYPES[file.type];
    const label = file.name === '' ? 'The pasted file' : file.name;
    if (extension === undefined) {
      refused.push(`${label} is not a PNG, JPEG, WebP or GIF image.`);
    } else if (file.size > IMAGE_MAX_BYTES) {
      refused.push(`${label} is ${megabytes(file.size)}; images can be at most 10 MB.`);
    } else if (attached + accepted.length >= IMAGE_MAX_COUNT) {
      refused.push(`${label} was not added: at most ${IMAGE_MAX_COUNT} images per message.`);
    } else {
      // A pasted screenshot is called "image.png" by every browser: number them instead.
      const name =
        file.name === '' || file.name === 'image.png'
          ? `pasted-${pastedSerial()}.${extension}`
          : file.name;
      accepted.push({ name, blob: file });
    }
  }
  return { accepted, refused };
}

/** The image's bytes as base64, without a `data:` prefix. */
export async function imageBase64(blob: Blob): Promise<string> {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  // In slices: String.fromCharCode with millions of arguments overflows the stack.
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(binary);
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
