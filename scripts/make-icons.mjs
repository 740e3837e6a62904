// Generates the app icons from assets/icon.svg (run by hand after changing the SVG; the outputs are
// committed, CI does not run this). Needs `rsvg-convert` (Debian: apt-get install -y librsvg2-bin).
//   assets/icons/<n>x<n>.png  n = 16 … 1024   Linux icon set (electron-builder linux.icon)
//   assets/icon.png           512 px           generic
//   assets/icon.icns          PNG-based ICNS   macOS
//   assets/icon.ico           PNG-based ICO    Windows (not a release target yet)
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const assets = new URL('../assets/', import.meta.url);
const svg = new URL('icon.svg', assets).pathname;
const sizes = [16, 24, 32, 48, 64, 128, 256, 512, 1024];

function render(size) {
  try {
    return execFileSync('rsvg-convert', ['--width', String(size), '--height', String(size), '--format', 'png', svg]);
  } catch (error) {
    console.error('rsvg-convert failed or is missing. On Debian: apt-get install -y librsvg2-bin');
    throw error;
  }
}

mkdirSync(new URL('icons/', assets), { recursive: true });
const png = new Map();
for (const size of sizes) {
  const data = render(size);
  png.set(size, data);
  writeFileSync(new URL(`icons/${size}x${size}.png`, assets), data);
}
writeFileSync(new URL('icon.png', assets), png.get(512));

// ICNS: "icns", total length, then (type, length incl. 8-byte header, PNG bytes) per entry: the PNG
// types of a standard .iconset: ic07 128, ic08 256, ic09 512, ic10 1024 (512@2x), ic11 32 (16@2x),
// ic12 64 (32@2x), ic13 256 (128@2x), ic14 512 (256@2x). macOS scales these for 16 and 32 pt at 1x.
const icnsTypes = [
  ['ic07', 128],
  ['ic08', 256],
  ['ic09', 512],
  ['ic10', 1024],
  ['ic11', 32],
  ['ic12', 64],
  ['ic13', 256],
  ['ic14', 512],
];
const icnsEntries = icnsTypes.map(([type, size]) => {
  const data = png.get(size);
  const header = Buffer.alloc(8);
  header.write(type, 0, 'ascii');
  header.writeUInt32BE(data.length + 8, 4);
  return Buffer.concat([header, data]);
});
const icnsBody = Buffer.concat(icnsEntries);
const icnsHeader = Buffer.alloc(8);
icnsHeader.write('icns', 0, 'ascii');
icnsHeader.writeUInt32BE(icnsBody.length + 8, 4);
writeFileSync(new URL('icon.icns', assets), Buffer.concat([icnsHeader, icnsBody]));

// ICO: ICONDIR (6 bytes), one 16-byte ICONDIRENTRY per image, then the PNG images. 256 is written as 0.
const icoSizes = [16, 24, 32, 48, 64, 128, 256];
const dir = Buffer.alloc(6);
dir.writeUInt16LE(0, 0);
dir.writeUInt16LE(1, 2);
dir.writeUInt16LE(icoSizes.length, 4);
let offset = 6 + 16 * icoSizes.length;
const entries = [];
for (const size of icoSizes) {
  const data = png.get(size);
  const entry = Buffer.alloc(16);
  entry.writeUInt8(size >= 256 ? 0 : size, 0);
  entry.writeUInt8(size >= 256 ? 0 : size, 1);
  entry.writeUInt8(0, 2);
  entry.writeUInt8(0, 3);
  entry.writeUInt16LE(1, 4);
  entry.writeUInt16LE(32, 6);
  entry.writeUInt32LE(data.length, 8);
  entry.writeUInt32LE(offset, 12);
  offset += data.length;
  entries.push(entry);
}
writeFileSync(new URL('icon.ico', assets), Buffer.concat([dir, ...entries, ...icoSizes.map((size) => png.get(size))]));

console.log(
  `wrote assets/icons/{${sizes.join(',')}}, icon.png, icon.icns, icon.ico from ${readFileSync(svg).length} bytes of SVG`,
);
