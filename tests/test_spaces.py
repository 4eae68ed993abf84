"""What a Hugging Face Space needs: README front matter and a requirements.txt in step."""

import tomllib
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

import yaml
from packaging.requirements import Requirement

from ragspace.settings import PROJECT_ROOT


def front_matter() -> dict[str, Any]:
    """The YAML block at the top of README.md that configures the Space."""
    text = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n"), "README.md must start with the Space's YAML front matter"
    block = text[4 : text.index("\n---\n", 4)]
    data: dict[str, Any] = yaml.safe_load(block)
    return data


def parse_requirements(text: str) -> dict[str, Requirement]:
    requirements = [
        Requirement(line) for line in text.splitlines() if line.strip() and line[0] != "#"
    ]
    return {r.name.lower(): r for r in requirements}


def pinned_requirements() -> dict[str, Requirement]:
    return parse_requirements((PROJECT_ROOT / "requirements.txt").read_text(encoding="utf-8"))


def declared_dependencies(pyproject_text: str) -> list[Requirement]:
    return [Requirement(d) for d in tomllib.loads(pyproject_text)["project"]["dependencies"]]


def requirement_drift(
    declared: list[Requirement],
    pinned: dict[str, Requirement],
    installed: Callable[[str], str],
) -> list[str]:
    """How requirements.txt disagrees with pyproject.toml or the environment of the tests."""
    problems = []
    names = {d.name.lower() for d in declared}
    problems += [f"{name} is pinned but not declared" for name in sorted(set(pinned) - names)]
    problems += [f"{name} is declared but not pinned" for name in sorted(names - set(pinned))]
    for requirement in declared:
        pin = pinned.get(requirement.name.lower())
        if pin is None:
            continue
        specs = list(pin.specifier)
        if len(specs) != 1 or specs[0].operator != "==":
            problems.append(f"{pin} is not pinned")
            continue
        pinned_version = specs[0].version
        if not requirement.specifier.contains(pinned_version):
            problems.append(f"{pin} outside {requirement}")
        if pin.extras != requirement.extras:
            problems.append(f"{pin} has other extras than {requirement}")
        if installed(requirement.name) != pinned_version:
            problems.append(f"{pin} but the tests run with {installed(requirement.name)}")
    return problems


def test_front_matter_describes_a_gradio_space() -> None:
    meta = front_matter()
    assert meta["sdk"] == "gradio"
    assert meta["app_file"] == "app.py" and (PROJECT_ROOT / meta["app_file"]).is_file()
    assert meta["sdk_version"] == version("gradio")  # the Gradio the tests ran with
    assert str(meta["python_version"]) == "3.11"
    assert meta["title"] and meta["emoji"] and len(meta["short_description"]) <= 60


def test_requirements_pin_every_dependency_within_pyproject_ranges() -> None:
    pyproject = (PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    pinned = pinned_requirements()
    assert requirement_drift(declared_dependencies(pyproject), pinned, version) == []
    assert str(pinned["gradio"].specifier) == f"=={front_matter()['sdk_version']}"


def test_drift_between_pyproject_requirements_and_environment_is_reported() -> None:
    declared = declared_dependencies(
        '[project]\ndependencies = ["numpy>=1.26", "httpx>=0.27,<1", "rich>=13"]\n'
    )
    pinned = parse_requirements("numpy==2.0.0\nhttpx==1.2.0\nextra-thing==1.0\n")
    installed = {"numpy": "2.1.0", "httpx": "1.2.0", "rich": "13.0"}
    assert requirement_drift(declared, pinned, installed.__getitem__) == [
        "extra-thing is pinned but not declared",
        "rich is declared but not pinned",
        "numpy==2.0.0 but the tests run with 2.1.0",
        "httpx==1.2.0 outside httpx<1,>=0.27",
    ]
