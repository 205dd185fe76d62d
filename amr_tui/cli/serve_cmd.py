"""amr serve [PATH...] [--read-only NAME]... [--port N]

Serves the editor to a web browser with textual-serve (MIT): every browser session runs its own
``python -m amr_tui PATH...`` and shows it in the page's terminal. The server listens on
127.0.0.1 only and everything it serves lives under a random token (``/<token>/``, the URL it
prints): a request without the token is refused (403) before any route is matched, so another
user of the machine, or a web page in the reviewer's browser, cannot start an editor. textual-serve
and aiohttp are imported only by this command (start-up of ``amr``). Its parser: cli/parsers/serve.py.
"""

from __future__ import annotations

import argparse
import asyncio
import hmac
import secrets
import shlex
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from amr_tui.cli.app_cmd import BadTarget, parse_targets
from amr_tui.cli.output import error
from amr_tui.services.config import load_config
from amr_tui.services.workspace import discover, looks_like_memory_root

try:  # textual-serve, and its aiohttp and jinja2: a build without them says so when `amr serve` runs
    import aiohttp_jinja2
    import jinja2
    from aiohttp import web
    from textual_serve.server import Server
except ImportError:  # pragma: no cover - every install has them (pyproject.toml)
    SERVES = False
else:
    SERVES = True


HOST = "127.0.0.1"  # never another interface: the token is the only lock


def app_command(args: list[str], read_only: list[str]) -> str:
    """The shell command textual-serve runs for each browser session: this Python's ``-m amr_tui``."""
    argv = [sys.executable, "-m", "amr_tui", *args]
    for name in read_only:
        argv += ["--read-only", name]
    return shlex.join(argv)


def _targets(raw: list[str], read_only: list[str]) -> list[str] | str:
    """The PATH arguments made absolute (the app runs in a child process), or what is wrong."""
    args: list[str] = []
    paths: list[Path] = []
    for arg in raw:
        try:
            (path,), open_at = parse_targets([arg])
        except BadTarget as exc:
            return str(exc)
        paths.append(path)
        line = open_at[1] if open_at is not None else 0
        args.append(f"{path.resolve()}:{line}" if line else str(path.resolve()))
    if not paths:
        cwd = Path.cwd()
        cfg = load_config()
        paths = [cwd] if looks_like_memory_root(cwd) else [p for p in cfg.repos if p.exists()]
        args = [str(p.resolve()) for p in paths]
    if not paths:
        return "no memory repo here: name one (amr serve PATH), or list repos in the config"
    try:
        mounts = discover(paths, set(read_only))
    except FileNotFoundError as exc:
        return str(exc)
    names = {m.name for m in mounts} | {m.root.name for m in mounts}
    unknown = sorted(set(read_only) - names)
    if unknown:
        mounted = ", ".join(sorted(m.name for m in mounts)) or "none"
        return f"--read-only {unknown[0]}: no mounted repo has that name (mounted: {mounted})"
    return args


def allowed_hosts(port: int) -> set[str]:
    """The Host headers that name this server: its loopback address or ``localhost``, with the
    port it listens on (a browser leaves out port 80)."""
    hosts = {f"{HOST}:{port}", f"localhost:{port}"}
    return hosts | {HOST, "localhost"} if port == 80 else hosts


class Listening:
    """The port the server listens on, set once it is bound (0 until then: every request is refused)."""

    port = 0


def make_web_app(command: str, token: str, listening: Listening) -> tuple[web.Application, Server]:
    """The aiohttp app serving ``command`` under ``/<token>/``, and its textual-serve server (whose
    ``public_url`` the caller sets once the port is known, as it sets ``listening.port``)."""
    server = Server(command, host=HOST, title="amr")
    prefix = f"/{token}/"

    @web.middleware
    async def require_token(
        request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        given = request.path[: len(prefix)]
        if len(given) != len(prefix) or not hmac.compare_digest(given.encode(), prefix.encode()):
            raise web.HTTPForbidden(text="403: this amr serve URL needs its token (printed when it started)\n")
        # A page elsewhere that learnt the URL, or a DNS name rebound to 127.0.0.1, is refused:
        # the Host must name this machine's loopback and the port this server listens on (never
        # the port the Host header itself says), and an Origin (browsers send one on a WebSocket
        # and on cross-site requests) must be this server's own.
        hosts = allowed_hosts(listening.port) if listening.port else set()
        if request.host not in hosts:
            raise web.HTTPForbidden(text="403: amr serve answers only to 127.0.0.1 and localhost\n")
        origin = request.headers.get("Origin")
        if origin is not None and origin not in {f"http://{h}" for h in hosts}:
            raise web.HTTPForbidden(text="403: a page from another origin cannot use amr serve\n")
        return await handler(request)

    async def websocket(request: web.Request) -> web.StreamResponse:
        if request.headers.get("Upgrade", "").lower() != "websocket":
            return web.Response(status=400, text="400: this is amr serve's WebSocket; open the page instead\n")
        return await server.handle_websocket(request)

    app = web.Application(middlewares=[require_token])
    # Our own page (serve_page/): everything it loads is served from here, no outside font.
    aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(Path(__file__).with_name("serve_page")))
    app.add_routes(
        [
            web.get(prefix, server.handle_index, name="index"),
            web.get(f"{prefix}ws", websocket, name="websocket"),
            web.get(f"{prefix}download/{{key}}", server.handle_download, name="download"),
            web.static(f"{prefix}static", server.statics_path, name="static"),
        ]
    )
    return app, server


async def serve(command: str, port: int, token: str, ready: asyncio.Event | None = None) -> None:
    """Serve until SIGINT or SIGTERM (or the task is cancelled), printing the URL once bound."""
    listening = Listening()
    app, server = make_web_app(command, token, listening)
    runner = web.AppRunner(app, handle_signals=False)
    await runner.setup()
    try:
        site = web.TCPSite(runner, HOST, port)
        await site.start()
        bound = runner.addresses[0][1]
        listening.port = bound
        server.public_url = f"http://{HOST}:{bound}"
        print(f"amr serve: open {server.public_url}/{token}/ in a browser (Ctrl+C stops)", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        if ready is not None:
            ready.set()
        await stop.wait()
    finally:
        await runner.cleanup()


def run(args: argparse.Namespace) -> int:
    if not SERVES:
        error("amr serve needs textual-serve: pip install textual-serve")
        return 2
    targets = _targets(list(args.paths), list(args.read_only))
    if isinstance(targets, str):
        error(targets)
        return 2
    if not 0 <= args.port <= 65535:
        error(f"--port {args.port}: not a port (0-65535)")
        return 2
    token = secrets.token_urlsafe(24)
    try:
        asyncio.run(serve(app_command(targets, list(args.read_only)), args.port, token))
    except OSError as exc:
        error(f"cannot listen on {HOST}:{args.port}: {exc.strerror or exc}")
        return 1
    return 0
