"""A port on 127.0.0.1 with nothing listening, for tests of endpoints that cannot be reached."""

import socket


def closed_port() -> int:
    """A port that was free a moment ago and has no listener now (connecting to it is refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
