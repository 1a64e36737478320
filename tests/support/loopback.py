"""Endpoints on 127.0.0.1 for tests: a port with nothing listening, and the threaded HTTP server the fake services
run on (never the real network)."""

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


def closed_port() -> int:
    """A port that was free a moment ago and has no listener now (connecting to it is refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LoopbackHTTPServer:
    """A threaded HTTP server on a free 127.0.0.1 port, serving from a daemon thread for the length of a ``with``
    block. A fake service subclasses it, gives its request handler in :meth:`handler` and calls
    ``super().__init__()`` once its own state is set."""

    def __init__(self) -> None:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self.handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    def handler(self) -> type[BaseHTTPRequestHandler]:
        """The request handler class; a subclass's handler reaches the fake through a closure."""
        raise NotImplementedError

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self._httpd.server_port}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler that logs nothing to stderr."""

    def log_message(self, *args: object) -> None:
        return
