import { deflateSync } from 'node:zlib';

// A real (tiny) PNG so that clients which download and store images (profile pictures, user
// attachments) get bytes that image tools accept.

const CRC_TABLE: Uint32Array = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([len, typeAndData, crc]);
}

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

/** Solid-colour RGB PNG with a lighter diagonal, so pictures of different users differ visibly. */
export function makePng(width: number, height: number, color: Rgb): Buffer {
  const w = Math.max(1, Math.min(512, Math.floor(width)));
  const h = Math.max(1, Math.min(512, Math.floor(height)));
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) {
    const row = y * (w * 3 + 1);
    raw[row] = 0; // filter: none
    for (let x = 0; x < w; x++) {
      const light = x === y ? 80 : 0;
      const p = row + 1 + x * 3;
      raw[p] = Math.min(255, color.r + light);
      raw[p + 1] = Math.min(255, color.g + light);
      raw[p + 2] = Math.min(255, color.b + light);
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type RGB
  ihdr[10] = 0;
  ihdr[11] = 0;
  ihdr[12] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Stable colour derived from a string (e.g. a user id). */
export function colorFor(seed: string): Rgb {
  let h = 2166136261;
  for (const ch of seed) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return { r: 40 + (h & 0x7f), g: 40 + ((h >>> 8) & 0x7f), b: 40 + ((h >>> 16) & 0x7f) };
}
