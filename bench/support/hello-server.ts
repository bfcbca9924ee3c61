import Fastify from 'fastify';

/** The framework's limit: Fastify with nothing behind the route. */
const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ port: Number(process.env.PORT), host: process.env.HOST ?? '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
