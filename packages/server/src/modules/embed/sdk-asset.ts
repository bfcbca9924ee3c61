import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** packages/embed's build output (`npm run build`, run by `npm ci`'s prepare). */
export const sdkPath = fileURLToPath(new URL('../../../../embed/dist/sdk.js', import.meta.url));

export interface SdkAsset {
  body: Buffer;
  gzipped: Buffer;
  /** The first 16 hex digits of the SHA-256 of the file: its ETag and its ?v= version. */
  hash: string;
}

let loaded: Promise<SdkAsset | undefined> | undefined;

/**
 * Read and compressed once per process: the file only changes with a new build, which comes with a
 * restart. Compressing once here is why no compression plugin runs per request. Undefined when the
 * package was never built.
 */
export function sdkAsset(): Promise<SdkAsset | undefined> {
  loaded ??= readFile(sdkPath).then(
    (body) => ({ body, gzipped: gzipSync(body, { level: 9 }), hash: createHash('sha256').update(body).digest('hex').slice(0, 16) }),
    () => {
      loaded = undefined;
      return undefined;
    },
  );
  return loaded;
}
