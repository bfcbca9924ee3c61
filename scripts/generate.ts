// `npm run generate`: writes every file generated from the server's schemas (the clients' types and
// models, the console's and the embed component's types) and the Python client's sync twin.
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedFiles, servedOpenApiDocument } from './generated-files.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const document = await servedOpenApiDocument();
for (const file of await generatedFiles(document)) {
  await mkdir(path.dirname(path.join(root, file.path)), { recursive: true });
  await writeFile(path.join(root, file.path), file.text);
  console.log(`wrote ${file.path}`);
}
const python = path.join(root, 'clients/python/scripts');
console.log(execFileSync('python3', [path.join(python, 'generate_models.py')], { input: JSON.stringify(document), encoding: 'utf8' }).trim());
console.log(execFileSync('python3', [path.join(python, 'generate_sync.py')], { encoding: 'utf8' }).trim());
