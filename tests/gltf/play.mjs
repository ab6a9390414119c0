// Loads GLBs with three.js's GLTFLoader and plays their animations with an
// AnimationMixer, comparing the posed vertices with the crate's CPU
// reference (written by tests/gltf/node.rs).
//
//   node play.mjs NODE_MODULES MANIFEST.json
//
// The manifest lists cases: {name, glb, expected, corners, clips: [{name,
// looping, step, times, offset}]}. `expected` is a file of little-endian
// f32: for each clip, for each time, every corner's position (x, y, z) in
// glTF's axes and units, starting at float `offset`. Prints one JSON line
// per clip: {case, clip, samples, max_diff, worst}. Exits 2 when three.js
// cannot be loaded; the caller judges the figures.

import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [modules, manifestPath] = process.argv.slice(2);
const url = (path) => pathToFileURL(join(resolve(modules), path)).href;
let THREE, GLTFLoader;
try {
  THREE = await import(url('three/build/three.module.js'));
  ({ GLTFLoader } = await import(url('three/examples/jsm/loaders/GLTFLoader.js')));
} catch (e) {
  console.error(`cannot load three.js from ${modules}: ${e.message}`);
  process.exit(2);
}

// Node has no image decoder: every texture is an empty one. The pose does
// not depend on textures.
class StubTextures {
  constructor(parser) {
    this.parser = parser;
    this.name = 'md2_wgpu_stub_textures';
  }
  loadTexture() {
    return Promise.resolve(new THREE.Texture());
  }
}

function parse(bytes) {
  const loader = new GLTFLoader();
  loader.register((parser) => new StubTextures(parser));
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return new Promise((ok, fail) => loader.parse(buffer, '', ok, fail));
}

/** The posed position of every vertex: base + sum of weight × delta, in
 *  world space (the node's transform dequantises quantised positions). */
function posed(mesh) {
  const base = mesh.geometry.attributes.position;
  const morphs = mesh.geometry.morphAttributes.position;
  const weights = mesh.morphTargetInfluences;
  if (!mesh.geometry.morphTargetsRelative) throw new Error('morph targets are not relative');
  const active = [];
  for (let i = 0; i < weights.length; i++) if (weights[i] !== 0) active.push(i);
  const out = new Float64Array(base.count * 3);
  const v = new THREE.Vector3();
  for (let c = 0; c < base.count; c++) {
    let x = base.getX(c), y = base.getY(c), z = base.getZ(c);
    for (const i of active) {
      x += weights[i] * morphs[i].getX(c);
      y += weights[i] * morphs[i].getY(c);
      z += weights[i] * morphs[i].getZ(c);
    }
    v.set(x, y, z).applyMatrix4(mesh.matrixWorld);
    out[3 * c] = v.x;
    out[3 * c + 1] = v.y;
    out[3 * c + 2] = v.z;
  }
  return out;
}

const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
for (const kase of manifest.cases) {
  const gltf = await parse(new Uint8Array(await readFile(kase.glb)));
  const expectedBytes = await readFile(kase.expected);
  const expected = new Float32Array(
    expectedBytes.buffer.slice(expectedBytes.byteOffset, expectedBytes.byteOffset + expectedBytes.byteLength));
  let mesh = null;
  gltf.scene.traverse((o) => { if (o.isMesh && !mesh) mesh = o; });
  gltf.scene.updateMatrixWorld(true);
  const mixer = new THREE.AnimationMixer(gltf.scene);
  for (const clipCase of kase.clips) {
    const clip = gltf.animations.find((a) => a.name === clipCase.name);
    const line = { case: kase.name, clip: clipCase.name, samples: 0, max_diff: null, worst: null };
    if (!clip) {
      line.error = `no animation named ${clipCase.name}`;
      console.log(JSON.stringify(line));
      continue;
    }
    const extras = gltf.parser.json.animations[gltf.animations.indexOf(clip)].extras ?? {};
    if (extras.looping !== clipCase.looping) line.error = `extras.looping is ${extras.looping}`;
    const action = mixer.clipAction(clip);
    // As the export says to play them: looping clips repeat, one-shot ones
    // play once and hold their last frame.
    action.setLoop(clipCase.looping ? THREE.LoopRepeat : THREE.LoopOnce, Infinity);
    action.clampWhenFinished = true;
    let maxDiff = 0;
    clipCase.times.forEach((time, s) => {
      action.reset().play();
      mixer.setTime(time);
      const got = posed(mesh);
      const base = clipCase.offset + s * kase.corners * 3;
      for (let c = 0; c < kase.corners; c++) {
        const d = Math.hypot(
          got[3 * c] - expected[base + 3 * c],
          got[3 * c + 1] - expected[base + 3 * c + 1],
          got[3 * c + 2] - expected[base + 3 * c + 2]);
        // A NaN is as far off as it gets.
        const dd = Number.isNaN(d) ? Infinity : d;
        if (dd > maxDiff || line.worst === null) {
          maxDiff = Math.max(maxDiff, dd);
          line.worst = { time, corner: c, got: [...got.slice(3 * c, 3 * c + 3)],
            want: [...expected.slice(base + 3 * c, base + 3 * c + 3)] };
        }
      }
      line.samples += 1;
    });
    action.stop();
    mixer.uncacheAction(clip);
    line.max_diff = maxDiff;
    console.log(JSON.stringify(line));
  }
}
