"""A real HTTP server on loopback speaking OpenAI's chat-completions protocol (what Vigil calls for
`chat.ask`), because no hosted model can be reached from the tests. It answers every question with
a fixed sentence; `fail_next(n)` makes the next `n` calls fail with a 500."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, Tuple

ANSWER = "There are 3 active alerts in this project."


class FakeLlm:
    def __init__(self) -> None:
        self.calls = 0
        self._failures = 0
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
                length = int(self.headers.get("content-length", "0"))
                request: Dict[str, Any] = json.loads(self.rfile.read(length) or b"{}")
                status, body = owner.reply(request)
                encoded = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(encoded)))
                self.end_headers()
                self.wfile.write(encoded)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def fail_next(self, count: int) -> None:
        with self._lock:
            self._failures = count

    def reply(self, request: Dict[str, Any]) -> Tuple[int, Dict[str, Any]]:
        with self._lock:
            self.calls += 1
            if self._failures > 0:
                self._failures -= 1
                return 500, {"error": {"message": "The model is overloaded.", "type": "server_error"}}
        message = {"role": "assistant", "content": ANSWER}
        usage = {"prompt_tokens": 40, "completion_tokens": 10, "total_tokens": 50}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        return 200, {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": request.get("model", "fake"), "choices": [choice], "usage": usage}

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
