"""A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe``.

Chromium reads NUL-terminated JSON commands on fd 3 and writes replies and
events on fd 4, so no websocket library is needed (the venv has none).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One headless Chromium with one page; ``events`` collects every event."""

    def __init__(
        self, executable: str, *, width: int = 1280, height: int = 900, timeout: float = 60
    ):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="site-chromium-")
        to_child, self._write = os.pipe()
        self._read, from_child = os.pipe()

        def wire():  # runs in the child: the pipe ends become fds 3 and 4
            os.dup2(to_child, 3)
            os.dup2(from_child, 4)

        self.proc = subprocess.Popen(
            [
                executable,
                "--headless=new",
                "--no-sandbox",  # CI runs as root, where the sandbox refuses to start
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--hide-scrollbars",
                f"--user-data-dir={self.profile}",
                f"--window-size={width},{height}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,
            pass_fds=(3, 4),
        )
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )

    # ------------------------------------------------------------------ wire
    def _receive(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("no reply from Chromium")
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict | None = None, *, session: bool = False) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_for(self, method: str, since: int) -> dict:
        deadline = time.monotonic() + self.timeout
        while True:
            for event in self.events[since:]:
                if event["method"] == method:
                    return event
            since = len(self.events)
            self.events.append(self._receive(deadline))

    # ------------------------------------------------------------------ page
    def open(self, path: Path) -> None:
        """Load a local file and wait for its load event."""
        mark = len(self.events)
        self.call("Page.navigate", {"url": Path(path).resolve().as_uri()}, session=True)
        self.wait_for("Page.loadEventFired", mark)

    def evaluate(self, expression: str):
        result = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            session=True,
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, x: float, y: float) -> None:
        """A real left click at page coordinates (CSS pixels)."""
        for kind in ("mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
                session=True,
            )

    def errors(self, since: int = 0) -> list[str]:
        """Console errors, uncaught exceptions and failed loads since event ``since``."""
        out = []
        for event in self.events[since:]:
            params = event.get("params", {})
            if event["method"] == "Runtime.exceptionThrown":
                out.append(params["exceptionDetails"].get("text", "exception"))
            elif event["method"] == "Runtime.consoleAPICalled" and params.get("type") in (
                "error",
                "assert",
            ):
                out.append(
                    " ".join(str(a.get("value", a.get("description"))) for a in params["args"])
                )
            elif event["method"] == "Log.entryAdded" and params["entry"]["level"] == "error":
                out.append(f"{params['entry'].get('text')} {params['entry'].get('url', '')}")
        return out

    def screenshot(self, path: Path, *, top: int = 0, max_height: int = 6000) -> None:
        """A PNG of the page from ``top``, at most ``max_height`` CSS pixels tall."""
        size = self.call("Page.getLayoutMetrics", session=True)["cssContentSize"]
        height = max(1, min(size["height"] - top, max_height))
        clip = {"x": 0, "y": top, "width": size["width"], "height": height, "scale": 1}
        shot = self.call(
            "Page.captureScreenshot",
            {"format": "png", "clip": clip, "captureBeyondViewport": True},
            session=True,
        )
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._read)
        os.close(self._write)
        shutil.rmtree(self.profile, ignore_errors=True)
