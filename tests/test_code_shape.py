"""The house stays readable: short functions outside the rules, short service modules,
no import running back up the layers, and one place for every Redis key."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHORT_FUNCTIONS = ("service", "workers", "replays", "cardtrail")
MAX_FUNCTION_LINES = 50
MAX_SERVICE_MODULE_LINES = 300


def _modules(*packages: str):
    for package in packages:
        yield from sorted((ROOT / package).rglob("*.py"))


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_no_function_outside_the_engine_is_longer_than_fifty_lines():
    long = []
    for path in _modules(*SHORT_FUNCTIONS):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {lines}")
    assert not long, "functions over 50 lines:\n" + "\n".join(long)


def test_no_service_module_is_longer_than_three_hundred_lines():
    long = [
        f"{path.relative_to(ROOT)}: {count}"
        for path in _modules("service")
        if (count := len(path.read_text().splitlines())) > MAX_SERVICE_MODULE_LINES
    ]
    assert not long, "service modules over 300 lines:\n" + "\n".join(long)


def test_dependencies_point_inward():
    """engine imports none of the others; replays does not import service or workers;
    service does not import workers (it names their jobs by dotted path only)."""
    forbidden = {
        "engine": ("service", "workers", "replays", "cardtrail"),
        "replays": ("service", "workers", "cardtrail"),
        "service": ("workers", "cardtrail"),
        "workers": ("cardtrail",),
    }
    wrong = []
    for package, outer in forbidden.items():
        for path in _modules(package):
            for name in _imports(path):
                if name.split(".")[0] in outer:
                    wrong.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not wrong, "\n".join(wrong)


def test_every_redis_key_is_named_in_the_key_layout():
    """Key strings ("cardtrail:…") appear in service/keys.py only."""
    literal = re.compile(r"""["']cardtrail:[a-z{*]""")
    elsewhere = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in _modules("service", "workers", "replays", "cardtrail")
        if path.name != "keys.py"
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if literal.search(line)
    ]
    assert not elsewhere, "Redis keys outside service/keys.py:\n" + "\n".join(elsewhere)


def test_names_and_comments_speak_of_the_code():
    """No issue numbers or requirement ids in code, comments or test file names."""
    pattern = re.compile(r"\b(issue|task) ?#?\d+\b|\b[PR][1-9](?:[–-][PR]?[1-9])?\b", re.I)
    found = []
    for path in _modules("engine", "service", "workers", "replays", "cardtrail", "tests", "bench"):
        if path == Path(__file__):
            continue
        if pattern.search(path.name):
            found.append(str(path.relative_to(ROOT)))
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if pattern.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
