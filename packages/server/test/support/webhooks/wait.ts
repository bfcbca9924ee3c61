/** Reads until `done` holds, every 25 ms, and fails naming what it waited for after `ms`. */
export async function waitFor<T>(read: () => Promise<T> | T, done: (value: T) => boolean, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
