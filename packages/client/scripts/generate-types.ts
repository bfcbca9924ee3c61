import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedFiles, servedOpenApiDocument } from './openapi-types.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
for (const file of await generatedFiles(await servedOpenApiDocument())) {
  await writeFile(path.join(root, file.path), file.text);
  console.log(`wrote ${file.path}`);
}
