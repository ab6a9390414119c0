// Runs the Khronos glTF-Validator (npm `gltf-validator`) on GLB files and
// prints one JSON line per file: the issue counts and every message.
//
//   node validate.mjs NODE_MODULES FILE.glb...
//
// Exits 2 when it cannot run at all (the package is missing); the caller
// judges the reports.

import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const [modules, ...files] = process.argv.slice(2);
const require = createRequire(join(resolve(modules), 'noop.js'));
let validator;
try {
  validator = require('gltf-validator');
} catch (e) {
  console.error(`cannot load gltf-validator from ${modules}: ${e.message}`);
  process.exit(2);
}

for (const file of files) {
  const bytes = new Uint8Array(await readFile(file));
  const report = await validator.validateBytes(bytes, {
    uri: file,
    maxIssues: 0,
    writeTimestamp: false,
  });
  const issues = report.issues;
  console.log(JSON.stringify({
    file,
    version: report.validatorVersion,
    errors: issues.numErrors,
    warnings: issues.numWarnings,
    infos: issues.numInfos,
    hints: issues.numHints,
    messages: issues.messages.map((m) => ({
      code: m.code,
      severity: m.severity,
      message: m.message,
      pointer: m.pointer ?? null,
    })),
  }));
}
