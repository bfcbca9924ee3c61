"""A real HTTP endpoint on loopback that records each webhook delivery exactly as it arrived."""

import queue
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict


@dataclass
class Received:
    headers: Dict[str, str]
    body: bytes


class Receiver:
    def __init__(self) -> None:
        self.deliveries: "queue.Queue[Received]" = queue.Queue()
        deliveries = self.deliveries

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                deliveries.put(Received(headers={name.lower(): value for name, value in self.headers.items()}, body=body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/vigil-webhooks"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def next(self, timeout: float = 30) -> Received:
        return self.deliveries.get(timeout=timeout)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
