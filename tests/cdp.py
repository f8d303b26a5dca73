"""Headless Chromium driven over the DevTools protocol through a pipe (--remote-debugging-pipe),
with the standard library only: the live report's tests type into the page and read it back,
and `make bench` times it.

Chromium reads commands from its file descriptor 3 and writes answers and events to 4, each a
JSON message ended by a NUL byte.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
from pathlib import Path
from typing import Any, Self

from tco.exporters.pdf import CHROMIUM_FLAGS


class ChromiumError(RuntimeError):
    pass


# Holds the page's idle callbacks (requestIdleCallback) in window.__heldIdle, from the next
# document on: they run only if the caller runs them (the live report's test does; the bench
# never does, to time a change before the page's first idle moment)
HOLD_IDLE = """window.__heldIdle = [];
window.requestIdleCallback = (callback) => window.__heldIdle.push(callback);"""


def _high(fd: int) -> int:
    """`fd` moved to a descriptor above 9 (never 3 or 4, which the child's must become)."""
    out = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return out


class Page:
    """One tab of a headless Chromium: `open(path)`, then `js(expression)`."""

    def __init__(self, exe: str, profile: Path) -> None:
        to_child, self._write = (_high(fd) for fd in os.pipe())
        self._read, from_child = (_high(fd) for fd in os.pipe())
        # bash puts the pipes on descriptors 3 and 4 and becomes Chromium (exec); a POSIX sh
        # need not take descriptors above 9
        argv = [exe, *CHROMIUM_FLAGS, "--remote-debugging-pipe", f"--user-data-dir={profile}",
                "about:blank"]
        wire = (f'exec "$@" 3<&{to_child} 4>&{from_child} {to_child}<&- {from_child}>&-')
        self.proc = subprocess.Popen(
            ["/bin/bash", "-c", wire, "bash", *argv], pass_fds=(to_child, from_child),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._id = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)

    # --- the protocol -------------------------------------------------------------------------
    def _send(self, method: str, params: dict[str, Any], session: bool) -> int:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        os.write(self._write, json.dumps(msg).encode() + b"\0")
        return self._id

    def _next(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise ChromiumError("chromium closed the pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)  # type: ignore[no-any-return]

    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        wanted = self._send(method, params, session)
        while True:
            msg = self._next()
            if msg.get("id") == wanted:
                if "error" in msg:
                    raise ChromiumError(f"{method}: {msg['error']}")
                return msg.get("result", {})  # type: ignore[no-any-return]
            self.events.append(msg)

    def wait_for(self, method: str) -> dict[str, Any]:
        for i, msg in enumerate(self.events):
            if msg.get("method") == method:
                return self.events.pop(i)
        while True:
            msg = self._next()
            if msg.get("method") == method:
                return msg
            self.events.append(msg)

    # --- what the tests use --------------------------------------------------------------------
    def open(self, page: Path) -> None:
        self.call("Page.navigate", session=True, url=page.as_uri())
        self.wait_for("Page.loadEventFired")

    def hold_idle(self) -> str:
        """Holds the idle callbacks of every document opened from now on (HOLD_IDLE); the
        identifier undoes it: Page.removeScriptToEvaluateOnNewDocument."""
        return str(self.call("Page.addScriptToEvaluateOnNewDocument", session=True,
                             source=HOLD_IDLE)["identifier"])

    def js(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-able), or ChromiumError with
        the exception's text."""
        out = self.call("Runtime.evaluate", session=True, expression=expression,
                        returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in out:
            details = out["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise ChromiumError(f"{text}")
        return out["result"].get("value")

    def console(self) -> list[str]:
        """Console messages, uncaught exceptions and browser log entries (a blocked script or
        fetch is one) seen so far."""
        out = []
        for msg in self.events:
            method, params = msg.get("method"), msg.get("params", {})
            if method == "Runtime.consoleAPICalled":
                out.append(" ".join(str(a.get("value", a.get("description")))
                                    for a in params.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                d = params.get("exceptionDetails", {})
                out.append(str(d.get("exception", {}).get("description") or d.get("text")))
            elif method == "Log.entryAdded":
                out.append(str(params.get("entry", {}).get("text")))
        return out

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (ChromiumError, OSError):
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._write)
        os.close(self._read)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
