"""A machine without chromium: the browser tests skip, and the run's summary says how many
and what to install, instead of a row of `s` among the dots."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _pytest(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def _skipped(output: str) -> int:
    found = re.search(r"(\d+) skipped", output)
    return int(found.group(1)) if found else 0


def test_the_summary_counts_the_browser_tests_skipped_for_want_of_chromium(tmp_path):
    missing = tmp_path / "no-chromium"
    done = _pytest("tests/web/test_spades_browser.py", CARDTRAIL_CHROMIUM=str(missing))
    assert done.returncode == 0, done.stdout + done.stderr
    count = _skipped(done.stdout)
    assert count >= 1, done.stdout
    line = f"{count} browser test{'' if count == 1 else 's'} skipped: no {missing} — "
    assert line + "apt-get install -y chromium" in done.stdout, done.stdout


def test_no_such_line_when_no_browser_test_was_skipped(tmp_path):
    """Only browser tests count: a test that needs no browser runs, and nothing is said."""
    missing = tmp_path / "no-chromium"
    done = _pytest(
        "tests/web/test_pages.py", "-k", "unknown_assets", CARDTRAIL_CHROMIUM=str(missing)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "browser test" not in done.stdout, done.stdout
