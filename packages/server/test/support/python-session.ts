import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/*
 * One Python interpreter that runs code blocks one after another in one namespace, as a reader
 * pasting a page's examples into one session would, and answers for each whether it ran.
 */
const driver = String.raw`
import contextlib, io, json, sys, traceback
namespace = {"__name__": "__docs__"}
for line in sys.stdin:
    request = json.loads(line)
    output = io.StringIO()
    try:
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
            exec(compile(request["code"], request["name"], "exec"), namespace)
        answer = {"ok": True, "output": output.getvalue()}
    except BaseException:
        answer = {"ok": False, "output": output.getvalue(), "error": traceback.format_exc()}
    sys.__stdout__.write(json.dumps(answer) + "\n")
    sys.__stdout__.flush()
`;

export interface PythonOutcome {
  ok: boolean;
  output: string;
  error?: string;
}

export class PythonSession {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly answers: AsyncIterator<string>;
  private stderr = '';

  constructor(env: NodeJS.ProcessEnv, cwd: string) {
    this.child = spawn('/usr/bin/python3', ['-c', driver], { env, cwd });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.answers = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
  }

  async run(name: string, code: string): Promise<PythonOutcome> {
    this.child.stdin.write(`${JSON.stringify({ name, code })}\n`);
    const next = await this.answers.next();
    if (next.done) return { ok: false, output: '', error: `the Python interpreter exited: ${this.stderr}` };
    return JSON.parse(next.value) as PythonOutcome;
  }

  close(): void {
    this.child.stdin.end();
    this.child.kill();
  }
}
