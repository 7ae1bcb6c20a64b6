"""Build the static site: the whole game as files any static host can serve.

`flyingchess build-site DIR` writes the page, the flyingchess package (engine, bots,
records and the web app itself) as one Python archive, the pure-Python packages the web
app needs, and the Python-in-the-browser runtime (Pyodide, from its pinned npm package).
The page then runs the same app in a Web Worker (server/transport/in_browser.py): local games with
no server, saved in the browser's storage, and offline after the first visit
(docs/static-site.md). Nothing of the game is written again for the browser.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import shutil
import subprocess
import sys
import tarfile
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Final

PACKAGE: Final = Path(__file__).resolve().parents[1]
WEB: Final = PACKAGE / "web"
PYODIDE_VERSION: Final = "314.0.8"
"""The runtime's npm package, pinned (package.json and package-lock.json say the same)."""
PYODIDE_INTEGRITY: Final = (
    "sha512-74Wq1kXOC+CCEzAfxuRAO701nAcCMLjf8NrwvWpu8S41dVMXwXmLQ05dYB+F4e46AdnGo0oq7YHSVUpHsoarLQ=="
)
PYODIDE_TARBALL: Final = f"https://registry.npmjs.org/pyodide/-/pyodide-{PYODIDE_VERSION}.tgz"
PYODIDE_FILES: Final = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
"""What the page loads of the runtime (its npm package has more: consoles, types, maps)."""
DEPENDENCIES: Final = ("starlette", "anyio", "idna", "typing_extensions")
"""The pure-Python packages the web app imports in the browser (Python 3.14 there),
copied from this environment's installed distributions."""
LEFT_OUT: Final = (
    "web/",  # the page: next to the archive, not in it
    "envs/",  # Gymnasium and PettingZoo
    "bots/value_weights.npz",  # NumPy's: the browser has no NumPy
    "bots/response_greedy.npz",
    "server/cluster/",  # Redis
    "server/launch/",  # child processes: throwaway PostgreSQL, Redis and nginx
    "server/storage/store_postgres.py",  # PostgreSQL
    "server/storage/migrate.py",
    "server/storage/backup.py",
    "server/transport/connections.py",  # uvicorn
    "server/transport/run.py",
    "simulation/",  # many games in processes
    "server/site.py",  # this build itself
    "clients/",  # the Python client, seat-bot, the terminal game: not for a page
    "cli/",
    "__main__.py",
)
"""Parts of the package the browser cannot or need not run."""
MARKER: Final = ".flyingchess-site"
VERSION_SLOT: Final = "@@version@@"
"""Where index.html gets the site's version, once every other file is written."""


class SiteError(Exception):
    """The site cannot be built: one line saying why."""


@dataclass(frozen=True)
class Site:
    """What was built: where, how many files and bytes, the version the page's cache uses."""

    folder: Path
    files: int
    size: int
    version: str
    pyodide: str


# ---------------------------------------------------------------- the runtime


def _pyodide_candidates() -> Iterator[Path]:
    """node_modules/pyodide where `npm ci` puts it: here, or beside a source checkout."""
    yield Path.cwd() / "node_modules" / "pyodide"
    yield PACKAGE.parents[1] / "node_modules" / "pyodide"


def _checked_pyodide(folder: Path) -> Path:
    package = folder / "package.json"
    if not package.is_file():
        raise SiteError(f"--pyodide: {folder} is not the pyodide npm package (no package.json)")
    version = json.loads(package.read_text(encoding="utf-8")).get("version")
    if version != PYODIDE_VERSION:
        raise SiteError(f"--pyodide: {folder} holds pyodide {version}, this site needs {PYODIDE_VERSION} (npm ci)")
    missing = [name for name in PYODIDE_FILES if not (folder / name).is_file()]
    if missing:
        raise SiteError(f"--pyodide: {folder} lacks {', '.join(missing)}")
    return folder


def _downloaded_pyodide(cache: Path) -> Path:
    """The pinned package from the npm registry, checked against its integrity hash."""
    folder = cache / f"pyodide-{PYODIDE_VERSION}" / "package"
    if (folder / "package.json").is_file():
        return folder
    try:
        with urllib.request.urlopen(PYODIDE_TARBALL, timeout=120) as response:
            data = response.read()
    except OSError as error:
        raise SiteError(
            f"cannot download pyodide {PYODIDE_VERSION} from the npm registry ({error}): run `npm ci` beside"
            " package.json, or give --pyodide DIR"
        ) from None
    algorithm, expected = PYODIDE_INTEGRITY.split("-", 1)
    if base64.b64encode(hashlib.new(algorithm, data).digest()).decode() != expected:
        raise SiteError(f"the downloaded pyodide {PYODIDE_VERSION} does not match its pinned integrity hash")
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        archive.extractall(folder.parent, filter="data")
    return folder


def find_pyodide(explicit: Path | None = None, cache: Path | None = None) -> Path:
    """The runtime's npm package: `explicit`, else node_modules (after `npm ci`), else
    downloaded from the npm registry into `cache` (checked against the pinned hash)."""
    if explicit is not None:
        return _checked_pyodide(explicit)
    for candidate in _pyodide_candidates():
        if (candidate / "package.json").is_file():
            return _checked_pyodide(candidate)
    if cache is None:
        import platformdirs

        cache = Path(platformdirs.user_cache_dir("flyingchess", appauthor=False))
    return _checked_pyodide(_downloaded_pyodide(cache))


# ---------------------------------------------------------------- the Python archive


def _package_files() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*")):
        relative = path.relative_to(PACKAGE).as_posix()
        if path.is_dir() or "__pycache__" in relative or relative.endswith(".pyc"):
            continue
        if any(relative.startswith(part) if part.endswith("/") else relative == part for part in LEFT_OUT):
            continue
        yield f"flyingchess/{relative}", path


def _dependency_files() -> Iterator[tuple[str, Path]]:
    for name in DEPENDENCIES:
        try:
            distribution = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise SiteError(f"the web app needs {name} in the site: pip install 'flyingchess[web]'") from None
        for file in distribution.files or ():
            text = file.as_posix()
            if ".dist-info/" in text or text.startswith("..") or "__pycache__" in text or text.endswith(".pyc"):
                continue
            yield text, Path(str(distribution.locate_file(file)))


def python_archive() -> bytes:
    """flyingchess and the packages its web app needs, as one zip (fixed dates: the same
    code gives the same bytes, and so the same site version)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, path in [*_package_files(), *_dependency_files()]:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    return out.getvalue()


def browser_meta() -> dict[str, object]:
    """GET /api/meta as the app answers it in the browser (no NumPy there), for the page's
    first paint: worked out in a child process where NumPy is hidden."""
    script = (
        "import json, sys\n"
        "sys.modules['numpy'] = None\n"
        "from flyingchess.server.transport.app import _meta\n"
        "print(json.dumps(_meta()))\n"
    )
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    if finished.returncode != 0:
        raise SiteError(f"cannot work out the page's facts: {finished.stderr.strip().splitlines()[-1:]}")
    meta: dict[str, object] = json.loads(finished.stdout)
    return meta


# ---------------------------------------------------------------- the site


def _prepare(folder: Path) -> None:
    if folder.exists() and not folder.is_dir():
        raise SiteError(f"{folder} is a file, not a folder")
    if folder.is_dir() and any(folder.iterdir()):
        if not (folder / MARKER).is_file():
            raise SiteError(f"{folder} is not empty and holds no site built here: choose an empty or new folder")
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)


def build_site(folder: Path, pyodide: Path | None = None, server: str | None = None) -> Site:
    """Write the static site into `folder` (new, empty, or a site built before)."""
    if server is not None and not server.startswith(("https://", "http://")):
        raise SiteError(f"--server {server!r} must be the address of a flyingchess server (https://...)")
    runtime = find_pyodide(pyodide)
    meta = browser_meta()
    _prepare(folder)
    static = folder / "static"
    shutil.copytree(WEB, static, ignore=shutil.ignore_patterns("index.html", "sw.js", "__pycache__"))
    (static / "meta.json").write_text(json.dumps(meta, separators=(",", ":")), encoding="utf-8")
    page = (WEB / "index.html").read_text(encoding="utf-8")
    tag = '<html lang="en" data-transport="network">'
    if tag not in page:
        raise SiteError("web/index.html no longer carries the transport attribute the site sets")
    named = f' data-server="{server}"' if server else ""
    (folder / "index.html").write_text(
        page.replace(tag, f'<html lang="en" data-transport="worker" data-version="{VERSION_SLOT}"{named}>'), "utf-8"
    )
    engine = folder / "engine"
    (engine / "pyodide").mkdir(parents=True)
    for name in PYODIDE_FILES:
        shutil.copy2(runtime / name, engine / "pyodide" / name)
    (engine / "python.zip").write_bytes(python_archive())
    (folder / ".nojekyll").write_text("", encoding="utf-8")  # GitHub Pages: serve every file as it is
    files = sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file())
    digest = hashlib.sha256()
    for name in files:
        digest.update(name.encode() + b"\0" + (folder / name).read_bytes())
    version = digest.hexdigest()[:16]
    index = folder / "index.html"  # the page names its version (its worker's caches follow it)
    index.write_text(index.read_text(encoding="utf-8").replace(VERSION_SLOT, version), encoding="utf-8")
    cached = ["./", *(name for name in files if not name.startswith("."))]
    worker = (WEB / "sw.js").read_text(encoding="utf-8")
    line = 'const MANIFEST = { version: "dev", files: [] };'
    if line not in worker:
        raise SiteError("web/sw.js no longer carries the manifest line the site fills in")
    manifest = json.dumps({"version": version, "files": cached}, separators=(",", ":"))
    (folder / "sw.js").write_text(worker.replace(line, f"const MANIFEST = {manifest};"), encoding="utf-8")
    (folder / MARKER).write_text(f"flyingchess site {version}\n", encoding="utf-8")
    size = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
    return Site(folder, len(files) + 2, size, version, PYODIDE_VERSION)


def site_cache() -> Path:
    """Where `flyingchess play --static` builds the site it serves (rebuilt each time: a
    build takes about a second once the runtime is at hand)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("flyingchess", appauthor=False)) / "static-site"


__all__ = ["Site", "SiteError", "browser_meta", "build_site", "find_pyodide", "python_archive", "site_cache"]
