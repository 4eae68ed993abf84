"""What a Hugging Face Space needs: README front matter and a requirements.txt in step."""

import tomllib
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


def pinned_requirements() -> dict[str, Requirement]:
    lines = (PROJECT_ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    requirements = [Requirement(line) for line in lines if line.strip() and line[0] != "#"]
    return {r.name.lower(): r for r in requirements}


def test_front_matter_describes_a_gradio_space() -> None:
    meta = front_matter()
    assert meta["sdk"] == "gradio"
    assert meta["app_file"] == "app.py" and (PROJECT_ROOT / meta["app_file"]).is_file()
    assert meta["sdk_version"] == version("gradio")  # the Gradio the tests ran with
    assert str(meta["python_version"]) == "3.11"
    assert meta["title"] and meta["emoji"] and len(meta["short_description"]) <= 60


def test_requirements_pin_every_dependency_within_pyproject_ranges() -> None:
    pyproject = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = [Requirement(d) for d in pyproject["project"]["dependencies"]]
    pinned = pinned_requirements()
    assert set(pinned) == {d.name.lower() for d in declared}
    for requirement in declared:
        pin = pinned[requirement.name.lower()]
        [spec] = list(pin.specifier)
        assert spec.operator == "==", f"{pin} is not pinned"
        assert requirement.specifier.contains(spec.version), f"{pin} outside {requirement}"
        assert pin.extras == requirement.extras
    assert str(pinned["gradio"].specifier) == f"=={front_matter()['sdk_version']}"
