"""False positives of the secret detector: what it takes out of real checkouts that hold none.

Each SWE-QA pool checkout (pytest, sphinx, pylint; `shared/eval/sweqa-dev/*.tar.gz`) is
unpacked and read exactly as `ragspace add dir` reads it (sources/folder.py, then the
classification every file passes): the lines the detectors redact, by detector, and the
files skipped by name as secrets. None of these checkouts holds a real secret, so every
redacted line and every such file is a false positive (their paths are kept in the results).

With --detect-secrets, detect-secrets' own scanner with all its default plugins (entropy and
keyword ones included) also reads the first --sample-mb of each checkout's indexed files:
its findings by plugin, and its CPU seconds per MB beside the detectors' here.

    python bench/secret_redactions.py [--detect-secrets [--sample-mb 0.5]] [--json PATH]
"""

import argparse
import collections
import datetime
import json
import os
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

from app_harness import default_eval_dir

from ragspace.actions.sources import classify_folder
from ragspace.runtime import archive_limits
from ragspace.settings import load_settings
from ragspace.sources.classify import SECRET
from ragspace.sources.filters import FileFilter
from ragspace.sources.folder import read_folder
from ragspace.sources.secret_scan import REDACTED_LINES, redact_secrets

CHECKOUTS = ("pytest", "sphinx", "pylint")
RESULTS = Path(__file__).parent / "results" / "secret_redactions.json"


def unpacked(name: str, into: Path) -> Path:
    """The checkout `name` unpacked under `into`; its root folder."""
    [archive] = (default_eval_dir() / "sweqa-dev").glob(f"{name}-*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    [root] = [p for p in into.iterdir() if p.is_dir()]
    return root


def measure(root: Path) -> dict[str, Any]:
    """What ingestion would redact and skip as secrets in the folder `root`."""
    settings = load_settings(None)
    max_bytes = settings.limits.max_upload_bytes
    started = time.process_time()
    listing = read_folder(root, FileFilter(max_bytes=max_bytes))
    documents, skipped = classify_folder(listing, max_bytes, archive_limits(settings))
    seconds = time.process_time() - started
    texts = [d.content for d in documents if not d.error_message]
    started = time.process_time()
    for text in texts:
        redact_secrets(text)
    scan_seconds = time.process_time() - started
    megabytes = sum(len(t.encode()) for t in texts) / 1e6
    redacted = [
        {"line": f"{d.path}#L{line}", "reason": reason}
        for d in documents
        for line, reason in d.metadata.get(REDACTED_LINES, [])
    ]
    by_kind = collections.Counter(r["reason"].split("(", 1)[1].rstrip(")") for r in redacted)
    return {
        "files indexed": len(texts),
        "lines": sum(t.count("\n") + 1 for t in texts),
        "MB": round(megabytes, 2),
        "redacted lines": len(redacted),
        "redacted by detector": dict(by_kind.most_common()),
        "redacted": redacted,
        "files skipped as secrets": [s.path for s in skipped if s.reason == SECRET],
        "read and classify s (CPU)": round(seconds, 2),
        "scan s per MB (CPU)": round(scan_seconds / megabytes, 4) if megabytes else 0.0,
    }


def detect_secrets_sample(root: Path, sample_mb: float) -> dict[str, Any]:
    """detect-secrets' scanner, all default plugins, on the first `sample_mb` of indexed files."""
    from detect_secrets.core import scan
    from detect_secrets.settings import default_settings

    settings = load_settings(None)
    listing = read_folder(root, FileFilter(max_bytes=settings.limits.max_upload_bytes))
    found: collections.Counter[str] = collections.Counter()
    scanned = 0
    started = time.process_time()
    with default_settings():
        for file in sorted(listing.files, key=lambda f: f.name):
            if scanned >= sample_mb * 1e6:
                break
            scanned += file.size
            location = root.parent / file.name
            found.update(secret.type for secret in scan.scan_file(str(location)))
    seconds = time.process_time() - started
    return {
        "MB": round(scanned / 1e6, 2),
        "findings by plugin": dict(found.most_common()),
        "findings": sum(found.values()),
        "s per MB (CPU)": round(seconds / (scanned / 1e6), 2) if scanned else 0.0,
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Every checkout measured; the results record."""
    load_before = os.getloadavg()[0]
    results: dict[str, Any] = {}
    for name in args.checkouts:
        with tempfile.TemporaryDirectory() as folder:
            root = unpacked(name, Path(folder))
            results[name] = measure(root)
            if args.detect_secrets:
                results[name]["detect-secrets"] = detect_secrets_sample(root, args.sample_mb)
        print(name, {k: v for k, v in results[name].items() if k != "redacted"}, flush=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": commit.stdout.strip(),
        "command": "python bench/secret_redactions.py"
        + (f" --detect-secrets --sample-mb {args.sample_mb:g}" if args.detect_secrets else ""),
        "load average before": load_before,
        "load average after": os.getloadavg()[0],
        "results": results,
    }


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--checkouts", nargs="+", default=list(CHECKOUTS))
    options.add_argument("--detect-secrets", action="store_true", help="also its own scanner")
    options.add_argument("--sample-mb", type=float, default=0.5, help="MB per checkout for it")
    options.add_argument("--json", type=Path, default=RESULTS)
    args = options.parse_args()
    record = run(args)
    args.json.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
