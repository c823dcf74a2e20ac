"""A typed client generated from the document a running server serves.

openapi-python-client reads the served /openapi.json and writes a package; the test
imports it and plays with it. Generation runs with --fail-on-warning, so a part of the
document the generator cannot type (and would silently leave out of the client) fails
the test instead.

JSON Lines has no reader in the generator: given the document's array of lines it writes
a parser that iterates over the body's bytes. So, for the generator only, a JSON Lines
body is described as the bytes it is (`as_bytes`) and read as such
(`content_type_overrides`); the test parses each line through the generated models of
the header and the records, which the document still defines. Everything else is
generated from the served document as it is.
"""

import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import yaml

JSON_LINES = "application/x-ndjson"

PACKAGE = "cardtrail_client"
CONFIG = {
    "package_name_override": PACKAGE,
    "project_name_override": "cardtrail-client",
    # the generator's default hooks run ruff over its output: formatting only, not needed
    "post_hooks": [],
    "content_type_overrides": {JSON_LINES: "application/octet-stream"},
}


def as_bytes(document: dict) -> dict:
    """A copy of `document` in which every JSON Lines body is a binary string."""
    copy = json.loads(json.dumps(document))
    operations = [op for item in copy["paths"].values() for op in item.values()]
    for operation in operations:
        answers = operation.get("responses", {}) if isinstance(operation, dict) else {}
        for answer in answers.values():
            media = answer.get("content", {}).get(JSON_LINES)
            if media is not None:
                media["schema"] = {"type": "string", "format": "binary"}
    return copy


def generate(document: dict, folder: Path) -> ModuleType:
    """Write the client for `document` under `folder` and import it."""
    spec = folder / "openapi.json"
    spec.write_text(json.dumps(as_bytes(document)))
    config = folder / "generator.yaml"
    config.write_text(yaml.safe_dump(CONFIG))
    generator = Path(sys.executable).with_name("openapi-python-client")
    run = subprocess.run(
        [
            str(generator),
            "generate",
            "--path",
            str(spec),
            "--output-path",
            str(folder / PACKAGE),
            "--meta",
            "none",
            "--config",
            str(config),
            "--fail-on-warning",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, f"openapi-python-client failed:\n{run.stdout}\n{run.stderr}"
    sys.path.insert(0, str(folder))
    importlib.invalidate_caches()
    for name in [name for name in sys.modules if name.split(".")[0] == PACKAGE]:
        del sys.modules[name]
    package = importlib.import_module(PACKAGE)
    for part in ("models", "types", "api.games"):
        importlib.import_module(f"{PACKAGE}.{part}")
    return package


def submodule(client: ModuleType, dotted: str) -> ModuleType:
    """`client.<dotted>`, imported (the generated package imports its parts lazily)."""
    return importlib.import_module(f"{client.__name__}.{dotted}")
