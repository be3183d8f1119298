// Draws the phone page's icons (a cairn: three stacked stones) as PNGs, so the repository holds
// no binary whose origin is unknown. Run after changing the drawing:
//   node scripts/make-icons.mjs
// Writes companion/web/icons/*.png. Plain pixels + zlib: no image library needed.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const out = resolve(fileURLToPath(import.meta.url), '../../companion/web/icons');

const BACKGROUND = [0x2b, 0x2f, 0x3a];
/** Stones as ellipses on a unit square: centre x, centre y, radius x, radius y, colour. */
const STONES = [
  { cx: 0.5, cy: 0.72, rx: 0.3, ry: 0.11, color: [0x9a, 0xa5, 0xb1] },
  { cx: 0.5, cy: 0.53, rx: 0.22, ry: 0.09, color: [0xc3, 0xcb, 0xd4] },
  { cx: 0.5, cy: 0.375, rx: 0.14, ry: 0.07, color: [0xe8, 0xec, 0xf0] },
  { cx: 0.5, cy: 0.26, rx: 0.075, ry: 0.045, color: [0x7c, 0xc4, 0xa4] },
];

/**
 * One icon. `safeZone` shrinks the drawing for maskable icons, whose outer 10% may be cropped
 * to a circle by Android; `rounded` clips the corners for the regular icons.
 */
function draw(size, { safeZone = 1, rounded = true } = {}) {
  const samples = 4;
  const pixels = Buffer.alloc(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const u = (x + (sx + 0.5) / samples) / size;
          const v = (y + (sy + 0.5) / samples) / size;
          if (rounded && outsideRoundedSquare(u, v, 0.18)) continue;
          let color = BACKGROUND;
          const su = 0.5 + (u - 0.5) / safeZone;
          const sv = 0.5 + (v - 0.5) / safeZone;
          for (const stone of STONES) {
            const dx = (su - stone.cx) / stone.rx;
            const dy = (sv - stone.cy) / stone.ry;
            if (dx * dx + dy * dy <= 1) color = stone.color;
          }
          r += color[0];
          g += color[1];
          b += color[2];
          a += 255;
        }
      }
      const n = samples * samples;
      const covered = a / 255;
      const offset = (y * size + x) * 4;
      pixels[offset] = covered ? Math.round(r / covered) : 0;
      pixels[offset + 1] = covered ? Math.round(g / covered) : 0;
      pixels[offset + 2] = covered ? Math.round(b / covered) : 0;
      pixels[offset + 3] = Math.round(a / n);
    }
  }
  return encodePng(size, size, pixels);
}

function outsideRoundedSquare(u, v, radius) {
  const cx = Math.min(Math.max(u, radius), 1 - radius);
  const cy = Math.min(Math.max(v, radius), 1 - radius);
  return (u - cx) ** 2 + (v - cy) ** 2 > radius * radius;
}

function encodePng(width, height, rgba) {
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0; // filter: none
    rgba.copy(raw, y * (width * 4 + 1) + 1, y * width * 4, (y + 1) * width * 4);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const icons = [
  ['icon-192.png', draw(192)],
  ['icon-512.png', draw(512)],
  ['icon-maskable-512.png', draw(512, { safeZone: 0.8, rounded: false })],
  ['apple-touch-icon.png', draw(180, { rounded: false })],
];
for (const [name, png] of icons) {
  writeFileSync(join(out, name), png);
  console.log(`${name}: ${png.length} bytes`);
}
