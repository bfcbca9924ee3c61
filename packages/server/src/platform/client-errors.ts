import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { type ErrorCode, statusOf } from './errors.js';
import { newId } from './ids.js';

const answers: Record<string, { code: ErrorCode; error: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    code: 'REQUEST_TIMEOUT',
    error: 'The request was not received in time (VIGIL_REQUEST_TIMEOUT_MS); send it again at a steady pace.',
  },
  HPE_HEADER_OVERFLOW: {
    code: 'HEADERS_TOO_LARGE',
    error: 'The request line and headers are larger than this server accepts (16 KiB): shorten the URL or the headers.',
  },
};
// 422 like any other malformed input (DESIGN §3.4), so one documented code covers it.
const malformed = { code: 'VALIDATION_ERROR' as const, error: 'The request is not valid HTTP (a header with a byte HTTP forbids, or a malformed request line).' };

/**
 * Fastify's `clientErrorHandler`: a request Node's parser refuses (headers too large, too slow,
 * malformed) never reaches Fastify's hooks, so it is answered here, in the error format and with
 * a request id like every other answer. Written to the socket because no response object exists.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const { code, error: message } = answers[error.code ?? ''] ?? malformed;
    const status = statusOf[code];
    const requestId = newId('request');
    const body = JSON.stringify({ error: message, code, requestId });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
