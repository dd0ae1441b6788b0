import { deflateSync } from 'node:zlib';

// Small PNG pictures made in the test (no image files in the repository): a gradient with a
// rounded "shoe" shape, enough to show cards and pictures in the widget and its screenshot.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const out = Buffer.alloc(body.length + 8);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), body.length + 4);
  return out;
}

export function png(width: number, height: number, pixel: (x: number, y: number) => [number, number, number]): Buffer {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 3 + 1)] = 0;
    for (let x = 0; x < width; x++) {
      const [r, g, b] = pixel(x, y);
      const at = y * (width * 3 + 1) + 1 + x * 3;
      raw[at] = r;
      raw[at + 1] = g;
      raw[at + 2] = b;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A product picture: a soft background and a dark shoe-like shape in the given colour. */
export function shoePicture(hue: [number, number, number], width = 240, height = 130): Buffer {
  return png(width, height, (x, y) => {
    const bg: [number, number, number] = [236 - Math.round((y / height) * 18), 240 - Math.round((y / height) * 14), 245];
    const sole = y > height * 0.72 && y < height * 0.8 && x > width * 0.18 && x < width * 0.86;
    const dx = (x - width * 0.5) / (width * 0.34);
    const dy = (y - height * 0.62) / (height * 0.22);
    const upper = dx * dx + dy * dy < 1 && y < height * 0.74 && !(x > width * 0.62 && y < height * 0.5);
    if (sole) return [250, 250, 250];
    if (upper) return hue;
    return bg;
  });
}
