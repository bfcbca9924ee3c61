import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match?.[1].toLowerCase();
}

/**
 * JSON bodies are UTF-8 (RFC 8259): another declared charset is 415 and bytes that are not UTF-8
 * are 422, where Fastify's own parser would decode both as UTF-8 and store U+FFFD in their place.
 * Fastify's parser still does the parsing (and its prototype-poisoning checks).
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const charset = charsetOf(request.headers['content-type']);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      done(new ApiError('UNSUPPORTED_MEDIA_TYPE', `Send JSON as UTF-8 (charset=utf-8), not ${charset.slice(0, 40)}.`), undefined);
      return;
    }
    let text: string;
    try {
      text = strictUtf8.decode(body as Buffer);
    } catch {
      done(new ApiError('VALIDATION_ERROR', 'The body is not valid JSON: it has bytes that are not UTF-8.'), undefined);
      return;
    }
    parseJson(request, text, done);
  });
}
