import { rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { type AdminCommand, type AdminResult, type AdminTarget, describeFailure, runAdminCommand } from './commands.js';

/**
 * PGlite lets one process hold the data directory, so while a server runs the CLI hands it its
 * command over this socket. The socket file is owner-only: only the same OS user can reach it.
 */
export function adminSocketPath(dataDir: string): string {
  return path.join(dataDir, 'admin.sock');
}

export async function listenForAdmin(dataDir: string, target: AdminTarget): Promise<() => Promise<void>> {
  const socketPath = adminSocketPath(dataDir);
  await rm(socketPath, { force: true });
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        let status = 200;
        let body: AdminResult | { error: string };
        try {
          body = await runAdminCommand(target, JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdminCommand);
        } catch (error) {
          status = 400;
          body = { error: describeFailure(error) };
        }
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // The socket file is created owner-only, so no other user can connect in the moment before a chmod.
    const previousUmask = process.umask(0o177);
    try {
      server.listen(socketPath, resolve);
    } finally {
      process.umask(previousUmask);
    }
  });
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(socketPath, { force: true });
  };
}

/** True when a live server answers on this data directory's socket (a leftover file from a crash does not). */
export function isServerListening(dataDir: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(adminSocketPath(dataDir));
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export class AdminCommandFailed extends Error {}

/** Sends the command to a running server; undefined when none is listening on this data directory. */
export function sendToRunningServer(dataDir: string, command: AdminCommand): Promise<AdminResult | undefined> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { socketPath: adminSocketPath(dataDir), method: 'POST', path: '/', headers: { 'content-type': 'application/json' } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdminResult & { error?: string };
          if (response.statusCode === 200) resolve(body);
          else reject(new AdminCommandFailed(body.error ?? 'the server refused the command'));
        });
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') resolve(undefined);
      else reject(error);
    });
    request.end(JSON.stringify(command));
  });
}
