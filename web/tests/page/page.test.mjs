// The inspector page in a real browser: headless Chromium (Debian's) with
// WebGPU, driven by playwright-core, against the page web/build.sh built.
//
//   node --test web/tests/page/page.test.mjs      (.ci/web.sh runs it)
//
// MD2_WEB_SCREENSHOT=docs/web.png also saves the page showing the demo
// model (the picture in web/README.md). The real model's tests skip, saying
// why, without the shared models; the validator's part skips without
// .ci/node's packages unless MD2_REQUIRE_NODE=1.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  FLAGS, ROOT, SHARED, bounds, browser, centre, changed, click, colours, drop, open,
  pixels, serve, state, until,
} from './harness.mjs';

/** Quake II's player animations, in the order the inspector lists them. */
const PLAYER = [
  'stand', 'run', 'attack', 'pain1', 'pain2', 'pain3', 'jump', 'flip', 'salute', 'taunt',
  'wave', 'point', 'crstand', 'crwalk', 'crattack', 'crpain', 'crdeath', 'death1', 'death2',
  'death3',
];

const shared = (path) => join(SHARED, path);
const haveShared = ['yohko/tris.md2', 'yohko/Yohko.pcx', 'yohko/weapon.md2', 'yohko/weapon.pcx',
  'yohko/w_railgun.md2'].every((p) => existsSync(shared(p)));
const noShared = haveShared ? false : `the shared models are absent (${SHARED}; set MD2_SHARED_MODELS)`;
const haveMdl = ['../mdl/soldier.mdl', '../mdl/palette.lmp'].every((p) => existsSync(shared(p)));
const noMdl = haveMdl ? false : `the shared Quake I models are absent (${shared('../mdl')})`;

/** The shared Quake III player the page is given, file by file. */
const MAJOR = ['lower.md3', 'upper.md3', 'head.md3', 'animation.cfg', 'lower_default.skin',
  'upper_default.skin', 'head_default.skin', 'lower.tga', 'torso.tga', 'head.tga'];
const haveMd3 = MAJOR.every((p) => existsSync(shared(`../md3/major/${p}`)));
const noMd3 = haveMd3 ? false : `the shared Quake III players are absent (${shared('../md3')})`;

async function file(path, name = path.split('/').pop()) {
  return { name, bytes: await readFile(shared(path)) };
}

/**
 * The model's pixels in the 3D view: the view paused, shot, then shot
 * again in a red powerup shell (Q), which only the model's pixels (and
 * the shell's rim around them) change. The view, the plain shot, and the
 * indices that changed.
 */
async function modelPixels(page) {
  const s = await state(page);
  const view = s.view;
  // Focus the view (a click is no drag, so the camera stays), pause.
  const { x, y } = centre(view);
  await page.mouse.click(x, y);
  await page.keyboard.press('Space');
  await page.waitForTimeout(500);
  const plain = await pixels(page, view);
  await page.keyboard.press('q');
  await page.waitForTimeout(500);
  const shelled = await pixels(page, view);
  // Back to no shell (red, green, blue, double, half, off), playing.
  for (let i = 0; i < 5; i++) await page.keyboard.press('q');
  await page.keyboard.press('Space');
  return { view, plain, model: changed(plain, shelled) };
}

describe('the inspector page', () => {
  let server;
  let chrome;
  let page;
  let demo;

  before(async () => {
    server = await serve();
    chrome = await browser();
    page = await chrome.context.newPage();
  });

  after(async () => {
    if (process.exitCode && chrome) console.log(chrome.console.join('\n'));
    await chrome?.close();
    await server?.close();
  });

  it('loads and draws the demo model', async () => {
    const s = await open(page, server.url);
    console.log(`adapter: ${JSON.stringify(s.adapter)}`);
    assert.equal(s.model, 'demo model');
    assert.deepEqual(s.errors, []);
    assert.equal(s.adapter.backend, 'BrowserWebGpu');
    // It plays: the frame moves on.
    const first = s.frame;
    await until(page, (t) => t.frame !== first, 'the animation to move on');
    if (process.env.MD2_WEB_SCREENSHOT) {
      await page.waitForTimeout(1500);
      await page.screenshot({ path: process.env.MD2_WEB_SCREENSHOT });
      console.log(`wrote ${process.env.MD2_WEB_SCREENSHOT}`);
    }
    demo = await modelPixels(page);
    const { view, plain, model } = demo;
    const area = plain.width * plain.height;
    const [x0, y0, x1, y1] = bounds(model, plain.width);
    const { distinct } = colours(plain, model);
    console.log(`demo model: ${model.length} of ${area} view pixels, box ${[x0, y0, x1, y1]}, ` +
      `${distinct} colours`);
    assert.ok(model.length > area * 0.02, `the model covers ${model.length} pixels`);
    // Framed: in the middle of the view, not touching its edges.
    assert.ok(x0 > 0 && y0 > 0 && x1 < plain.width - 1 && y1 < plain.height - 1, 'framed');
    const middle = [(x0 + x1) / 2 / plain.width, (y0 + y1) / 2 / plain.height];
    assert.ok(middle.every((m) => m > 0.3 && m < 0.7), `centred: ${middle}`);
    // Lit and textured: many colours, not a flat silhouette.
    assert.ok(distinct > 200, `${distinct} colours on the model`);
    assert.ok(view[2] > 300 && view[3] > 300, `a 3D view of ${view}`);
  });

  it('shows a real model and its skin dropped on it: its animations and its picture',
    { skip: noShared }, async () => {
      await drop(page, [
        await file('yohko/tris.md2'),
        await file('yohko/Yohko.pcx'),
        await file('yohko/weapon.md2'),
        await file('yohko/weapon.pcx'),
      ]);
      const s = await until(page, (t) => t.model === 'tris.md2', 'tris.md2 to open');
      assert.deepEqual(s.errors, []);
      assert.deepEqual(s.animations, PLAYER);
      assert.equal(s.clips_from, 'the Quake II player table');
      assert.equal(s.frames, 198);
      assert.equal(s.skins.length, 1);
      assert.equal(s.skins[0].name, 'Yohko.pcx');
      assert.ok(s.skins[0].loaded, s.skins[0].status);
      assert.equal(s.weapon, 'weapon.md2');
      const yohko = await modelPixels(page);
      const area = yohko.plain.width * yohko.plain.height;
      const mine = colours(yohko.plain, yohko.model);
      const theirs = colours(demo.plain, demo.model);
      const apart = Math.hypot(...mine.mean.map((c, i) => c - theirs.mean[i]));
      console.log(`yohko: ${yohko.model.length} of ${area} view pixels, ${mine.distinct} colours, ` +
        `mean ${mine.mean.map(Math.round)} (the demo's ${theirs.mean.map(Math.round)})`);
      assert.ok(yohko.model.length > area * 0.02, `the model covers ${yohko.model.length} pixels`);
      assert.ok(mine.distinct > 200, `${mine.distinct} colours on the model`);
      // Its own skin, not the demo's nor the checker.
      assert.ok(apart > 20, `its colours are ${apart} from the demo model's`);
      const differ = changed(demo.plain, yohko.plain).length;
      assert.ok(differ > area * 0.02, `${differ} pixels differ from the demo model's picture`);
    });

  it('opens a weapon from the browser\'s file picker', { skip: noShared }, async () => {
    const chooser = page.waitForEvent('filechooser');
    await click(page, 'Open weapon…');
    const picker = await chooser;
    assert.ok(picker.isMultiple());
    await picker.setFiles([shared('yohko/w_railgun.md2')]);
    const s = await until(page, (t) => t.weapon === 'w_railgun.md2', 'the picked weapon');
    assert.deepEqual(s.errors, []);
  });

  it('shows a Quake I model and its palette dropped on it', { skip: noMdl }, async () => {
    const before = await modelPixels(page);
    await drop(page, [await file('../mdl/soldier.mdl'), await file('../mdl/palette.lmp')]);
    const s = await until(page, (t) => t.model === 'soldier.mdl', 'soldier.mdl to open');
    assert.deepEqual(s.errors, []);
    assert.equal(s.frames, 114);
    // Block Quake names every frame frameN: one animation by the name rule.
    assert.deepEqual(s.animations, ['frame']);
    assert.ok(s.skins.length >= 1);
    assert.ok(s.skins.every((k) => k.loaded && k.status.includes('palette.lmp')),
      JSON.stringify(s.skins));
    const soldier = await modelPixels(page);
    const area = soldier.plain.width * soldier.plain.height;
    const mine = colours(soldier.plain, soldier.model);
    console.log(`soldier.mdl: ${soldier.model.length} of ${area} view pixels, ` +
      `${mine.distinct} colours, mean ${mine.mean.map(Math.round)}`);
    assert.ok(soldier.model.length > area * 0.02, `the model covers ${soldier.model.length} pixels`);
    assert.ok(mine.distinct > 100, `${mine.distinct} colours on the model`);
    const differ = changed(before.plain, soldier.plain).length;
    assert.ok(differ > area * 0.02, `${differ} pixels differ from the model before`);
  });

  it('shows a hostile file\'s error and keeps the model', async () => {
    const before = await state(page);
    // A header that claims more vertices and frames than any file holds.
    const header = new Int32Array([
      0x32504449, 8, 256, 256, 40 + 4 * 0x7fffff, 1, 0x7fffff, 3, 1, 0, 0x7fff,
      68, 132, 144, 156, 156, 160,
    ]);
    const bytes = Buffer.concat([Buffer.from(header.buffer), Buffer.alloc(92)]);
    await drop(page, [{ name: 'evil.md2', bytes }, { name: 'notes.txt', bytes: Buffer.from('hi') }]);
    const s = await until(page, (t) => t.errors.length >= 2, 'the errors');
    console.log(`errors shown: ${JSON.stringify(s.errors)}`);
    assert.ok(s.errors.some((e) => e.startsWith('evil.md2: ')), JSON.stringify(s.errors));
    assert.ok(s.errors.some((e) => e.startsWith('notes.txt: neither a model (.md2, .mdl)')));
    assert.equal(s.model, before.model, 'the model shown stays');
    assert.equal(s.frames, before.frames);
  });

  it('exports the model as a GLB the Khronos validator accepts', async () => {
    const before = await state(page);
    const download = page.waitForEvent('download');
    await click(page, 'Export .glb');
    const saved = await download;
    const name = before.model.replace(/\.[^.]*$/, '').replace(/ /g, '-');
    assert.equal(saved.suggestedFilename(), `${name}.glb`);
    const dir = await mkdtemp(join(tmpdir(), 'md2-web-glb-'));
    try {
      const glb = join(dir, saved.suggestedFilename());
      await saved.saveAs(glb);
      const bytes = await readFile(glb);
      assert.equal(bytes.subarray(0, 4).toString('latin1'), 'glTF');
      const s = await until(page, (t) => t.exported, 'the export note');
      console.log(`exported: ${s.exported}`);
      // Every frame a morph target, every animation (as the frame names
      // group them, as md2info --gltf exports them) a glTF animation.
      const json = JSON.parse(bytes.subarray(20, 20 + bytes.readUInt32LE(12)).toString('utf8'));
      const targets = json.meshes[0].primitives[0].targets.length;
      const animations = json.animations.map((a) => a.name);
      console.log(`the GLB: ${targets} morph targets, animations ${animations.join(' ')}`);
      assert.equal(targets, before.frames);
      assert.ok(animations.length > 0 && animations.every((a) => a));
      assert.equal(s.exported,
        `${name}.glb: ${bytes.length} bytes, ${targets} morph targets, ${animations.length} animations`);
      const modules = join(ROOT, '.ci/node/node_modules');
      if (!existsSync(join(modules, 'gltf-validator/package.json'))) {
        const why = `${modules} has no gltf-validator (npm install --prefix .ci/node)`;
        if (process.env.MD2_REQUIRE_NODE === '1') assert.fail(`MD2_REQUIRE_NODE=1 but ${why}`);
        console.log(`skipping the validator: ${why}`);
        return;
      }
      const run = spawnSync(process.execPath,
        [join(ROOT, 'tests/gltf/validate.mjs'), modules, glb], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      const report = JSON.parse(run.stdout.trim());
      console.log(`Khronos glTF-Validator ${report.version}: ${report.errors} errors, ` +
        `${report.warnings} warnings, ${report.infos} infos`);
      assert.equal(report.errors, 0, JSON.stringify(report.messages));
      assert.equal(report.warnings, 0, JSON.stringify(report.messages));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('shows a Quake III player dropped as its files, every surface in its texture',
    { skip: noMd3 }, async () => {
      const before = await state(page);
      const plain = await pixels(page, before.view);
      await drop(page, await Promise.all(MAJOR.map((f) => file(`../md3/major/${f}`))));
      const s = await until(page, (t) => t.quake3 !== null, 'the player to open');
      assert.deepEqual(s.errors, []);
      assert.equal(s.quake3.surfaces, 3);
      assert.equal(s.quake3.legs, 'LEGS_IDLE');
      assert.equal(s.quake3.torso, 'TORSO_STAND');
      assert.ok(s.quake3.textures.every((t) => t.includes('.tga (512x512)')),
        JSON.stringify(s.quake3.textures));
      await page.waitForTimeout(1000);
      // The same part of the canvas as before (the panels around the view
      // differ for a player).
      const shown = await pixels(page, before.view);
      const area = shown.width * shown.height;
      const mine = colours(shown, changed(plain, shown));
      console.log(`major: ${mine.distinct} colours where the view changed`);
      assert.ok(changed(plain, shown).length > area * 0.02, 'the player is drawn');
      assert.ok(mine.distinct > 100, `${mine.distinct} colours on the player`);
    });

  it('says plainly where the browser has no WebGPU', async () => {
    // No navigator.gpu at all (a browser without WebGPU).
    const bare = await chrome.context.newPage();
    await bare.addInitScript(() => delete Object.getPrototypeOf(navigator).gpu);
    await bare.goto(server.url);
    await bare.waitForFunction(() => document.body.dataset.md2 === 'failed');
    const text = await bare.locator('#message').textContent();
    assert.match(text, /needs WebGPU, which this browser does not offer/);
    await bare.close();
    // WebGPU without an adapter: Chromium without --enable-unsafe-webgpu.
    const plain = await browser(FLAGS.filter((f) => f !== '--enable-unsafe-webgpu'));
    try {
      const other = await plain.context.newPage();
      await other.goto(server.url);
      await other.waitForFunction(() => document.body.dataset.md2 === 'failed');
      assert.match(await other.locator('#message').textContent(), /found no adapter/);
    } finally {
      await plain.close();
    }
  });
});
