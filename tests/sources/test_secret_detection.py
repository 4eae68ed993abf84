"""Secrets in a checkout never reach an anonymous searcher: generated secrets of every format
the detectors know, written in the ways code, config and docs write them, and the files
that hold nothing but secrets (dotenv variants, kube config, vault token, terraform state
and variables). The checkout is added with the real `ragspace add dir`, embedded, and then
searched and read over the real app's MCP endpoint with no login."""

import base64
import importlib
import inspect
import json
import pkgutil
import random
import string
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import re2
from detect_secrets import plugins
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.ip_public import IPPublicDetector

from ragspace.actions import Actions
from ragspace.ingestion.worker import Ingestor
from ragspace.sources.classify import SECRET
from ragspace.sources.secret_scan import DETECTORS, REDACTED, re2_pattern, redact_secrets
from tests.cli.test_cli import Run, cli  # noqa: F401 (the `cli` fixture)
from tests.ui.test_mcp import call, result_json

DOCSET = "leaky"
ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS, WORD = string.ascii_uppercase + string.digits, ALNUM + "_"


def _pick(rng: random.Random, alphabet: str, count: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(count))


def _jwt(rng: random.Random) -> str:
    def part(data: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    payload = {"sub": _pick(rng, string.digits, 10), "name": "Ada", "iat": 1516239022}
    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part(payload)}.{_pick(rng, ALNUM, 43)}"


# each format: how a value is made, and the ways a file writes it (the value as `{v}`)
FORMATS: dict[str, tuple[Callable[[random.Random], str], tuple[str, ...]]] = {
    "aws secret key": (
        lambda r: _pick(r, ALNUM + "/+", 40),
        (
            'AWS_SECRET_ACCESS_KEY = "{v}"',
            "aws_secret_access_key = {v}",
            "export AWS_SECRET_ACCESS_KEY={v}",
            "  aws_secret_access_key: {v}",
            '    "aws_secret_access_key": "{v}",',
        ),
    ),
    "aws key id": (
        lambda r: "AKIA" + _pick(r, string.ascii_uppercase + string.digits, 16),
        ("key_id = {v}",),
    ),
    "database url": (
        lambda r: _pick(r, ALNUM, 18),
        (
            "DATABASE_URL=postgres://app:{v}@db.internal:5432/app",
            'engine = create_engine("postgresql://admin:{v}@10.0.0.5/prod")',
            "  url: mysql://root:{v}@mysql:3306/shop",
            "MONGO_URI=mongodb+srv://svc:{v}@cluster0.example.net/db",
            "REDIS_URL=redis://default:{v}@cache:6379/0",
            "amqp://guest:{v}@rabbit:5672/",
        ),
    ),
    "slack token": (
        lambda r: (
            f"xoxb-{_pick(r, string.digits, 12)}-{_pick(r, string.digits, 13)}-"
            f"{_pick(r, string.ascii_lowercase + string.digits, 24)}"
        ),
        ('SLACK_BOT_TOKEN = "{v}"', "slack_token: {v}"),
    ),
    "slack webhook": (
        lambda r: (
            f"https://hooks.slack.com/services/T{_pick(r, ALNUM, 8)}/B{_pick(r, ALNUM, 8)}/"
            f"{_pick(r, ALNUM, 24)}"
        ),
        ("WEBHOOK = '{v}'",),
    ),
    "sendgrid key": (
        lambda r: f"SG.{_pick(r, ALNUM + '_-', 22)}.{_pick(r, ALNUM + '_-', 43)}",
        ("SENDGRID_API_KEY={v}", 'sendgrid.SendGridAPIClient("{v}")'),
    ),
    "azure storage key": (
        lambda r: _pick(r, ALNUM + "+/", 86) + "==",
        ("AZURE_STORAGE=DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={v};",),
    ),
    "jwt": (_jwt, ('Authorization: "Bearer {v}"', "token = {v}")),
    "github token": (
        lambda r: r.choice(
            ["ghp_" + _pick(r, ALNUM, 36), "github_pat_" + _pick(r, ALNUM + "_", 82)]
        ),
        ("GITHUB_TOKEN={v}",),
    ),
    "google api key": (lambda r: "AIza" + _pick(r, ALNUM + "_-", 35), ('maps_key: "{v}"',)),
    "stripe live key": (lambda r: "sk_live_" + _pick(r, ALNUM, 24), ("stripe.api_key = '{v}'",)),
}
# files that hold nothing but secrets: skipped by name, whatever they contain
SECRET_FILES = (
    ".envrc",
    ".env-staging",
    ".env_dev",
    ".env~",
    ".env.production.local",
    "ops/.kube/config",
    "ops/cluster.kubeconfig",
    ".vault-token",
    "infra/terraform.tfstate",
    "infra/terraform.tfstate.backup",
    "infra/prod.tfvars",
    "infra/secrets.auto.tfvars.json",
    "home/.docker/config.json",
    "home/.aws/credentials",
)
KEPT = {".env.example": "API_KEY=\n", "env.py": "MODE = 'dev'\n", "docs/terraform.md": "# Plan\n"}


def _generated(seed: int) -> tuple[dict[str, str], dict[str, str]]:
    """(file path -> text, secret value -> its format): every format in every style."""
    rng = random.Random(seed)
    files: dict[str, list[str]] = {"app/settings.py": [], "README.md": [], "deploy.yml": []}
    secrets: dict[str, str] = {}
    for number, (name, (make, styles)) in enumerate(FORMATS.items()):
        for style_number, style in enumerate(styles):
            value = make(rng)
            secrets[value] = name
            target = list(files)[(number + style_number) % len(files)]
            files[target] += [f"# {name}, written as style {style_number}", style.format(v=value)]
    files["README.md"] += ["", "The widgets are polished weekly by the sprocket team."]
    return {path: "\n".join(lines) + "\n" for path, lines in files.items()}, secrets


@pytest.mark.parametrize("seed", [1, 2])
def test_no_generated_secret_is_searchable_or_readable_anonymously(
    cli: Run,  # noqa: F811
    service: Actions,
    ingestor: Ingestor,
    launch_app: Callable[..., str],
    tmp_path: Path,
    seed: int,
) -> None:
    root = tmp_path / "leaky"
    texts, secrets = _generated(seed)
    markers = {
        name: f"marker-{seed}-{number}-{_pick(random.Random(number), ALNUM, 12)}"
        for number, name in enumerate(SECRET_FILES)
    }
    for path, text in {**texts, **KEPT}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    for name, marker in markers.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"TOKEN={marker}\npassword: {marker}\n")
    service.docsets.create(DOCSET)

    added = cli("add", "dir", DOCSET, str(root))
    assert added.code == 0, added.err
    ingestor.process_all()

    [source] = service.sources.all(DOCSET)
    reasons = {item["path"]: item["reason"] for item in source.sync_state["skipped"]}
    for name in SECRET_FILES:
        assert reasons.get(f"leaky/{name}") == SECRET, name
    stored = {d.path for d in service.documents.all(DOCSET)}
    assert {f"leaky/{path}" for path in [*texts, *KEPT]} == stored
    everything = "\n".join(service.documents.read(DOCSET, path).text for path in stored)
    leaked = {kind for value, kind in secrets.items() if value in everything}
    assert not leaked, f"searchable: {sorted(leaked)}"
    assert not [m for m in markers.values() if m in everything]
    assert everything.count(REDACTED) == len(secrets)  # one line each, the rest kept
    assert "polished weekly by the sprocket team" in everything

    url = launch_app(service)  # no accounts: anyone on the network may search it
    for kind in sorted(set(secrets.values())):
        found = result_json(call(url, "search", {"query": kind, "docsets": [DOCSET], "k": 20}))
        shown = json.dumps(found)
        assert not [v for v in secrets if v in shown], kind
    read = call(url, "read_document", {"docset": DOCSET, "path": "leaky/README.md"})
    text = " ".join(getattr(content, "text", "") for content in read.content)
    assert "sprocket team" in text and not [v for v in secrets if v in text]


def test_every_regex_detector_detect_secrets_ships_is_applied_but_the_ip_one() -> None:
    """A new detect-secrets with a new detector fails here until it is applied or excluded."""
    shipped = set()
    for module in pkgutil.iter_modules(plugins.__path__):
        loaded = importlib.import_module(f"{plugins.__name__}.{module.name}")
        shipped |= {
            value
            for value in vars(loaded).values()
            if isinstance(value, type)
            and issubclass(value, RegexBasedDetector)
            and value.__module__ == loaded.__name__
            and not inspect.isabstract(value)
        }
    assert shipped - set(DETECTORS) == {IPPublicDetector}
    for detector in DETECTORS:  # and every pattern of each compiles on RE2
        for pattern in detector().denylist:
            assert re2.compile(re2_pattern(pattern)), (detector, pattern.pattern)


@pytest.mark.parametrize(
    "line",
    [
        "eyJ" * 300_000,  # a JWT start, again and again
        "://a:" * 200_000 + "b",  # a URL with a password that never ends
        "aws_key = '" + "A" * 600_000,  # the quoted AWS key that never closes
        ("AKIA" + "A" * 15 + " ") * 50_000,  # key ids one character short
    ],
    ids=["jwt", "basic-auth", "aws-quoted", "aws-id"],
)
def test_a_hostile_megabyte_line_is_scanned_in_linear_time(line: str) -> None:
    started = time.process_time()
    text, _ = redact_secrets(f"# notes\n{line}\nend\n")
    assert time.process_time() - started < 2.0
    assert text.startswith("# notes\n") and text.endswith("\nend\n")
