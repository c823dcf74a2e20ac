"""The Docker image installs cardtrail with `pip install .` (not editable): the wheel must
carry the web pages — every template, script and stylesheet — or the image serves 404s."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LEFT_OUT = (
    ".git",
    ".venv",
    "build",
    "*.egg-info",
    "__pycache__",
    ".*_cache",
    ".hypothesis",
    "test-artifacts",
    ".cardtrail",
)


def test_the_wheel_carries_every_page_file(tmp_path):
    # Built from a copy: a build in the checkout leaves build/, whose stale files
    # setuptools would pack into later wheels.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*LEFT_OUT))
    built = tmp_path / "wheel"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(built), str(source)],
        check=True,
        capture_output=True,
    )
    [wheel] = built.glob("cardtrail-*.whl")
    packed = set(zipfile.ZipFile(wheel).namelist())
    pages = {
        path.relative_to(ROOT).as_posix()
        for folder in ("service/static", "service/templates")
        for path in (ROOT / folder).rglob("*")
        if path.is_file()
    }
    assert "service/static/js/games/spades.js" in pages
    assert pages <= packed, sorted(pages - packed)
