// What the page's tests share: a static server for the built page on
// 127.0.0.1, Debian's Chromium driven by playwright-core (with WebGPU on,
// a fresh profile), the page's published state (web/src/state.rs), files
// dropped on the canvas, and pixels read from screenshots.

import { createServer } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

/** The repository's root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** The built page: web/build.sh's output. */
export const DIST = resolve(process.env.MD2_WEB_DIST ?? join(ROOT, 'web/dist'));
/** Debian's Chromium (playwright's own browsers cannot be downloaded here). */
export const CHROMIUM = process.env.MD2_CHROMIUM ?? '/usr/bin/chromium';
/**
 * Headless Chromium with WebGPU (Dawn, on SwiftShader without a GPU). The
 * last three put Chromium's own compositing on SwiftShader's Vulkan too:
 * without them a WebGPU canvas that presents loses its device within a
 * second ("A valid external Instance reference no longer exists", or "Device
 * was destroyed") and shows in no screenshot; with them it stays and shows.
 */
export const FLAGS = [
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--enable-features=Vulkan',
  '--use-vulkan=swiftshader',
  '--use-angle=vulkan',
];
/** The shared community models, as md2-wgpu's own tests find them. */
export const SHARED = resolve(process.env.MD2_SHARED_MODELS ?? join(ROOT, '../shared/md2'));

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
};

/** Serves DIST on 127.0.0.1 at a free port; `{ url, close }`. */
export async function serve() {
  if (!existsSync(join(DIST, 'index.html'))) {
    throw new Error(`${DIST} has no page: build it first (web/build.sh)`);
  }
  const server = createServer(async (request, response) => {
    const path = new URL(request.url, 'http://127.0.0.1').pathname;
    const file = normalize(join(DIST, path === '/' ? 'index.html' : path));
    try {
      if (!file.startsWith(DIST)) throw new Error('outside the page');
      const body = await readFile(file);
      response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404);
      response.end();
    }
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${server.address().port}/`;
  return { url, close: () => new Promise((done) => server.close(done)) };
}

/**
 * Chromium with a fresh profile (a new user-data-dir, removed on close);
 * `flags` replace FLAGS. `{ context, close, console }`: `console` collects
 * what every page logs, for failure messages.
 */
export async function browser(flags = FLAGS) {
  const profile = await mkdtemp(join(tmpdir(), 'md2-web-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: flags,
    acceptDownloads: true,
    viewport: { width: 1280, height: 720 },
  });
  const console = [];
  context.on('page', (page) => watch(page, console));
  for (const page of context.pages()) watch(page, console);
  return {
    context,
    console,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

function watch(page, log) {
  page.on('console', (m) => log.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => log.push(`page error: ${e.message}`));
}

/** The page's published state, or null before the inspector runs. */
export async function state(page) {
  const text = await page.locator('#md2-state').textContent();
  return text ? JSON.parse(text) : null;
}

/** Waits until `holds(state)`; fails after `ms` with the last state. */
export async function until(page, holds, what, ms = 60_000) {
  const end = Date.now() + ms;
  let last = null;
  while (Date.now() < end) {
    last = await state(page);
    if (last && holds(last)) return last;
    await page.waitForTimeout(100);
  }
  throw new Error(`timed out waiting for ${what}; the page's state: ${JSON.stringify(last)}`);
}

/** Opens the page and waits for the inspector to show its first model. */
export async function open(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.md2, null, { timeout: 120_000 });
  const outcome = await page.evaluate(() => document.body.dataset.md2);
  if (outcome !== 'running') {
    throw new Error(`the page did not start: ${await page.locator('#message').textContent()}`);
  }
  return until(page, (s) => s.view && s.controls['Export .glb'], 'the inspector laid out');
}

/** Drops `files` ({ name, bytes }) on the canvas, as a person dragging them would. */
export async function drop(page, files) {
  const encoded = files.map((f) => ({ name: f.name, data: Buffer.from(f.bytes).toString('base64') }));
  await page.evaluate((files) => {
    const transfer = new DataTransfer();
    for (const { name, data } of files) {
      const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      transfer.items.add(new File([bytes], name));
    }
    const canvas = document.getElementById('md2-canvas');
    for (const type of ['dragenter', 'dragover', 'drop']) {
      canvas.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }
  }, encoded);
}

/** The centre of a `[x, y, w, h]` rectangle. */
export function centre([x, y, w, h]) {
  return { x: x + w / 2, y: y + h / 2 };
}

/** Clicks the inspector's button `label` where the page says it is. */
export async function click(page, label) {
  const s = await state(page);
  const rect = s.controls[label];
  if (!rect) throw new Error(`no button ${label} in ${JSON.stringify(s.controls)}`);
  const { x, y } = centre(rect);
  await page.mouse.click(x, y);
}

/**
 * The RGBA pixels of `rect` ([x, y, w, h], CSS pixels) as the page shows
 * them now: a screenshot, decoded by the browser itself.
 */
export async function pixels(page, [x, y, w, h]) {
  const clip = { x: Math.round(x), y: Math.round(y), width: Math.round(w), height: Math.round(h) };
  const png = await page.screenshot({ clip });
  const data = await page.evaluate(async (base64) => {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext('2d');
    context.drawImage(bitmap, 0, 0);
    const rgba = context.getImageData(0, 0, bitmap.width, bitmap.height).data;
    let text = '';
    for (let i = 0; i < rgba.length; i += 0x8000) {
      text += String.fromCharCode(...rgba.subarray(i, i + 0x8000));
    }
    return { width: bitmap.width, height: bitmap.height, base64: btoa(text) };
  }, png.toString('base64'));
  return { width: data.width, height: data.height, rgba: Buffer.from(data.base64, 'base64'), png };
}

/** Indices of the pixels whose colour differs by more than `tolerance` in a channel. */
export function changed(a, b, tolerance = 8) {
  const out = [];
  for (let i = 0; i < a.rgba.length; i += 4) {
    for (let c = 0; c < 3; c++) {
      if (Math.abs(a.rgba[i + c] - b.rgba[i + c]) > tolerance) {
        out.push(i / 4);
        break;
      }
    }
  }
  return out;
}

/** The mean colour and the number of distinct colours of `picture` at `indices`. */
export function colours(picture, indices) {
  const mean = [0, 0, 0];
  const distinct = new Set();
  for (const k of indices) {
    const p = picture.rgba.subarray(k * 4, k * 4 + 3);
    for (let c = 0; c < 3; c++) mean[c] += p[c] / indices.length;
    distinct.add((p[0] << 16) | (p[1] << 8) | p[2]);
  }
  return { mean, distinct: distinct.size };
}

/** The bounding box [x0, y0, x1, y1] of pixel `indices` in a picture `width` wide. */
export function bounds(indices, width) {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const k of indices) {
    const x = k % width;
    const y = Math.floor(k / width);
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  return [x0, y0, x1, y1];
}
