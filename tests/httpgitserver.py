"""An authenticated git server for sync tests: git's ``git-http-backend`` behind lighttpd.

lighttpd (Debian's package) runs in the foreground in its own process group, with its own config
in a temp folder, bound to 127.0.0.1 on a free port, HTTP Basic auth (``mod_auth``, a plain user
file) in front of every URL under ``/git/``, and ``git-http-backend`` as CGI serving the bare repos
of that folder (fetch and push: a user authenticated by the server may push). The fixture waits,
bounded, until the port accepts connections and stops the whole process group afterwards
(SIGTERM, then SIGKILL).

Credentials reach git the ordinary way: :func:`store_credentials` writes the test's HOME
``~/.gitconfig`` (``credential.helper = store``) and ``~/.git-credentials``; the remote URL never
holds them. Without lighttpd (or git-http-backend) the tests skip and say why; with ``CI=true`` they
fail instead, so CI cannot pass without running them.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.synchelpers import START_TIMEOUT, GitServer, free_port

USER = "amr-agent"
PASSWORD = "pw-Zq81cT-right"  # distinctive, so a test can prove it is printed nowhere
WRONG_PASSWORD = "pw-Kx27vR-wrong"
REALM = "amr test memory"


def lighttpd_binary() -> str | None:
    """lighttpd from PATH or /usr/sbin (not on a normal user's PATH)."""
    path = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/local/sbin"])
    return shutil.which("lighttpd", path=path)


def http_backend() -> str | None:
    try:
        exec_path = subprocess.run(
            ["git", "--exec-path"], capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    backend = Path(exec_path) / "git-http-backend"
    return str(backend) if os.access(backend, os.X_OK) else None


def missing_reason() -> str | None:
    """Why an authenticated server cannot run here, or None."""
    if lighttpd_binary() is None:
        return "lighttpd is not installed (apt-get install lighttpd): no authenticated HTTP git server"
    if http_backend() is None:
        return "git-http-backend was not found in git's exec path"
    return None


def require_server() -> None:
    """Skip (or, with CI=true, fail) when the server cannot run here."""
    reason = missing_reason()
    if reason is None:
        return
    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail(f"CI=true but {reason}", pytrace=False)
    pytest.skip(reason)


def _quote(value: str | Path) -> str:
    text = str(value)
    if any(c in text for c in '"\\\n'):
        raise ValueError(f"cannot put {text!r} in a lighttpd config")
    return f'"{text}"'


class HttpGitServer(GitServer):
    """``git-http-backend`` behind lighttpd with Basic auth, serving every bare repo under ``base``."""

    def __init__(self, base: Path, conf_dir: Path, users: dict[str, str]):
        super().__init__(base)
        self.conf_dir = conf_dir
        self.conf_dir.mkdir(parents=True, exist_ok=True)
        self.users = dict(users)
        self.log = self.conf_dir / "error.log"

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/git/{name}.git"

    @property
    def origin(self) -> str:
        """What git's credential store keys on: scheme, host and port."""
        return f"http://127.0.0.1:{self.port}"

    def _write_config(self) -> Path:
        backend = http_backend()
        assert backend is not None
        docroot = self.conf_dir / "htdocs"
        docroot.mkdir(exist_ok=True)
        userfile = self.conf_dir / "users"
        userfile.write_text("".join(f"{u}:{p}\n" for u, p in self.users.items()))
        userfile.chmod(0o600)
        conf = self.conf_dir / "lighttpd.conf"
        conf.write_text(
            "\n".join(
                [
                    f"server.document-root = {_quote(docroot)}",
                    'server.bind = "127.0.0.1"',
                    f"server.port = {self.port}",
                    f"server.errorlog = {_quote(self.log)}",
                    'server.modules = ("mod_alias", "mod_setenv", "mod_auth", "mod_authn_file", "mod_cgi")',
                    # lighttpd waits ~1 s before answering a wrong password (against guessing): not here
                    'server.feature-flags = ("auth.delay-invalid-creds" => "disable")',
                    f'alias.url = ("/git/" => {_quote(backend + "/")})',
                    '$HTTP["url"] =~ "^/git/" {',
                    '  cgi.assign = ("" => "")',
                    f'  setenv.set-environment = ("GIT_PROJECT_ROOT" => {_quote(self.base)}, "GIT_HTTP_EXPORT_ALL" => "1")',
                    "}",
                    'auth.backend = "plain"',
                    f"auth.backend.plain.userfile = {_quote(userfile)}",
                    f'auth.require = ("/git/" => ("method" => "basic", "realm" => {_quote(REALM)}, '
                    '"require" => "valid-user"))',
                    "",
                ]
            )
        )
        return conf

    def start(self) -> None:
        binary = lighttpd_binary()
        assert binary is not None, missing_reason()
        for _try in range(5):
            self.port = free_port()
            conf = self._write_config()
            check = subprocess.run([binary, "-tt", "-f", str(conf)], capture_output=True, text=True, timeout=10)
            if check.returncode != 0:
                raise RuntimeError(f"lighttpd rejects its config:\n{check.stdout}{check.stderr}")
            self.proc = subprocess.Popen(
                [binary, "-D", "-f", str(conf)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            deadline = time.monotonic() + START_TIMEOUT
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                        return
                except OSError:
                    time.sleep(0.05)
            self.stop()  # the port was taken meanwhile, or it did not come up: try another port
        log = self.log.read_text(errors="replace") if self.log.exists() else "(no log)"
        raise RuntimeError(f"lighttpd did not start:\n{log}")

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)  # lighttpd and any CGI (git-http-backend) it started
            except ProcessLookupError:
                break
            try:
                proc.wait(timeout=5)
                break
            except subprocess.TimeoutExpired:
                continue
        proc.poll()


def store_credentials(home: Path, server: HttpGitServer, user: str, password: str) -> Path:
    """git's own credential store in ``home``: ``credential.helper = store`` and one line in
    ``~/.git-credentials`` for the server. Returns the credentials file."""
    gitconfig = home / ".gitconfig"
    text = gitconfig.read_text() if gitconfig.exists() else ""
    if "helper = store" not in text:
        gitconfig.write_text(text + "[credential]\n\thelper = store\n")
    creds = home / ".git-credentials"
    scheme, _, hostport = server.origin.partition("://")
    creds.write_text(f"{scheme}://{user}:{password}@{hostport}\n")
    creds.chmod(0o600)
    return creds


@pytest.fixture(scope="module")
def http_git_server(tmp_path_factory: pytest.TempPathFactory):
    """One authenticated server per test module (each test makes its own repo on it)."""
    require_server()
    top = tmp_path_factory.mktemp("http-git")
    server = HttpGitServer(top / "repos", top / "lighttpd", {USER: PASSWORD})
    server.start()
    try:
        yield server
    finally:
        server.stop()
