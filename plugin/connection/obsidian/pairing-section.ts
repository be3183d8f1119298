/**
 * "Pair a phone" in the settings tab: a QR code of the pairing link for the phone's camera (the
 * link itself, to copy, below it), and "Send test notification"; each a settings row. The QR code is drawn as SVG
 * elements from the `qrcode` package's module matrix, so no HTML string is injected.
 */
import type { Setting } from 'obsidian';
import { create as createQrCode } from 'qrcode';
import { pairingLink } from './pairing-link';

export interface PairingSectionDeps {
  url: () => string;
  token: () => string;
  sendTestPush: () => Promise<{ ok: boolean; message: string }>;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** The "Pair a phone" row: its button shows the QR code under the description. */
export function renderPairRow(setting: Setting, deps: PairingSectionDeps): void {
  const body = setting.descEl.createDiv({ cls: 'cairn-pairing' });
  let shown = false;
  setting.addButton((button) =>
    button.setButtonText('Show QR code').onClick(() => {
      shown = !shown;
      button.setButtonText(shown ? 'Hide QR code' : 'Show QR code');
      body.empty();
      if (shown) drawPairing(body, deps);
    }),
  );
}

/** The "Send test notification" row. */
export function renderTestPushRow(setting: Setting, deps: PairingSectionDeps): void {
  const result = setting.descEl.createDiv({ cls: 'cairn-setting-message' });
  setting.addButton((button) =>
    button.setButtonText('Send test notification').onClick(async () => {
      button.setDisabled(true);
      result.setText('Sending…');
      const outcome = await deps.sendTestPush();
      result.setText(outcome.message);
      result.toggleClass('cairn-tone-error', !outcome.ok);
      result.toggleClass('cairn-tone-ok', outcome.ok);
      button.setDisabled(false);
    }),
  );
}

export function drawPairing(body: HTMLElement, deps: PairingSectionDeps): void {
  const link = pairingLink(deps.url(), deps.token());
  if (!link.ok) {
    body.createDiv({ cls: 'cairn-setting-message cairn-tone-warning', text: link.reason });
    return;
  }
  let modules;
  try {
    modules = createQrCode(link.link, { errorCorrectionLevel: 'M' }).modules;
  } catch (error) {
    body.createDiv({
      cls: 'cairn-setting-message cairn-tone-error',
      text: `Could not draw the QR code: ${error instanceof Error ? error.message : String(error)}`,
    });
    return;
  }
  const quiet = 4;
  const size = modules.size + quiet * 2;
  const svg = body.ownerDocument.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  svg.setAttribute('class', 'cairn-pairing-qr');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', 'Pairing QR code');
  const background = body.ownerDocument.createElementNS(SVG_NS, 'rect');
  background.setAttribute('width', String(size));
  background.setAttribute('height', String(size));
  background.setAttribute('fill', '#fff');
  svg.appendChild(background);
  let path = '';
  for (let row = 0; row < modules.size; row++) {
    for (let column = 0; column < modules.size; column++) {
      if (modules.get(row, column)) path += `M${column + quiet} ${row + quiet}h1v1h-1z`;
    }
  }
  const dark = body.ownerDocument.createElementNS(SVG_NS, 'path');
  dark.setAttribute('d', path);
  dark.setAttribute('fill', '#000');
  svg.appendChild(dark);
  body.appendChild(svg);
  body.createEl('code', { cls: 'cairn-pairing-link', text: link.link });
}
