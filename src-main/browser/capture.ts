// Screenshots the model can take in: at most CAPTURE_MAX_HEIGHT CSS pixels of a page are captured (a
// 50,000-px page is cut, and the model is told), and the image is scaled down by Chromium itself so its
// long side is at most IMAGE_MAX_LONG and its short side at most IMAGE_MAX_SHORT (what vision models keep
// of an image anyway: larger ones are scaled down on their side, costing bytes for nothing).
import type { CDPSession, Locator } from 'playwright-core';

export const CAPTURE_MAX_HEIGHT = 4000;
export const IMAGE_MAX_LONG = 2048;
export const IMAGE_MAX_SHORT = 768;

export interface Capture {
  png: Buffer;
  /** The image's size in pixels. */
  width: number;
  height: number;
  /** The page area captured, in CSS pixels. */
  area: { x: number; y: number; width: number; height: number };
  /** The area was cut to CAPTURE_MAX_HEIGHT (the page or element is taller). */
  cut: boolean;
}

/** The scale that fits a `width`×`height` area within the model's limits (never above 1). */
export function fitScale(width: number, height: number): number {
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  if (long <= 0 || short <= 0) return 1;
  return Math.min(1, IMAGE_MAX_LONG / long, IMAGE_MAX_SHORT / short);
}

/** Screenshot of the viewport, the whole page (`fullPage`) or one element (`element`). */
export async function capture(
  cdp: CDPSession,
  options: { fullPage: boolean; element: Locator | null },
): Promise<Capture> {
  const metrics = await cdp.send('Page.getLayoutMetrics');
  const viewport = metrics.cssLayoutViewport;
  let area: Capture['area'];
  if (options.element !== null) {
    const box = await options.element.boundingBox();
    if (box === null) throw new Error('the element is not visible, so it has no area to capture');
    area = { x: box.x + viewport.pageX, y: box.y + viewport.pageY, width: box.width, height: box.height };
  } else if (options.fullPage) {
    area = { x: 0, y: 0, width: viewport.clientWidth, height: metrics.cssContentSize.height };
  } else {
    area = { x: viewport.pageX, y: viewport.pageY, width: viewport.clientWidth, height: viewport.clientHeight };
  }
  const cut = area.height > CAPTURE_MAX_HEIGHT;
  if (cut) area = { ...area, height: CAPTURE_MAX_HEIGHT };
  area = {
    x: Math.max(0, area.x),
    y: Math.max(0, area.y),
    width: Math.max(1, area.width),
    height: Math.max(1, area.height),
  };
  const scale = fitScale(area.width, area.height);
  const shot = await cdp.send('Page.captureScreenshot', {
    format: 'png',
    clip: { ...area, scale },
    captureBeyondViewport: options.fullPage || options.element !== null,
  });
  const png = Buffer.from(shot.data, 'base64');
  const size = pngSize(png);
  return { png, width: size.width, height: size.height, area, cut };
}

/** The pixel size a PNG's IHDR chunk gives. */
export function pngSize(png: Buffer): { width: number; height: number } {
  if (png.length < 24 || png.toString('latin1', 12, 16) !== 'IHDR') throw new Error('the screenshot is not a PNG');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
