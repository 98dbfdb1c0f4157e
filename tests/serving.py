"""``toolgram serve`` started from a test: 127.0.0.1, a free port (``--port 0``), stderr collected."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time

ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}


class ServeProcess:
    """One ``toolgram serve`` process; ``url`` is the ``.../v1`` base it printed."""

    def __init__(self, command: list[str], start_timeout: float = 180, extra: tuple[str, ...] = ()) -> None:
        self.proc = subprocess.Popen(
            [*command, "serve", "--host", "127.0.0.1", "--port", "0", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV, stdin=subprocess.DEVNULL)
        self.stderr: list[str] = []
        threading.Thread(target=self._drain, daemon=True).start()
        self.url = ""
        deadline = time.monotonic() + start_timeout
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            if "http://" in line:
                self.url = line.split()[-1]
                break
        if not self.url:
            self.stop()
            raise RuntimeError("toolgram serve did not start: " + "".join(self.stderr)[-2000:])

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line)

    def stop(self) -> None:
        """SIGTERM, then a kill if the server has not exited within 30 s."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
