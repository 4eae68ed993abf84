"""Tool arguments as assistants send them, made into what the tools take, with notes.

Agents often send one DocSet name where a list is expected, a number as a string, a `k` of
100, or a field a tool does not have. A JSON-schema error ("is not valid under any of the
given schemas") gives them nothing to act on, so before a call the arguments are forgiven
where the intent is plain: a single name becomes a list of one, numbers are parsed, values
out of range are clamped and unknown fields dropped, each said in a note returned with the
result. Only what cannot be guessed (a missing query) is refused, in words naming the field.
Used by `ragspace mcp` and by the web app's endpoint (before Gradio's schema check).
"""

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ragspace.errors import ValidationError
from ragspace_mcp.catalog import Parameter, parameters

# (tool, parameter) or parameter -> (lowest, highest); None: unbounded on that side
RANGES: dict[tuple[str, str] | str, tuple[int | None, int | None]] = {
    ("search", "k"): (1, 50),
    ("ask", "k"): (1, 20),
    "max_tokens": (0, None),
    "start_line": (1, None),
    "end_line": (1, None),
    "depth": (0, 10),
    "max_pages": (1, None),
    "source_id": (1, None),
}


@dataclass
class Prepared:
    """Arguments a tool can take, and what was changed to get them."""

    arguments: dict[str, Any]
    notes: list[str] = field(default_factory=list)


def prepare(tool: Callable[..., Any], given: dict[str, Any] | None) -> Prepared:
    """The tool's arguments from what was sent; raises ValidationError only for a value
    that cannot be guessed (a required one missing or empty)."""
    name = tool.__name__
    expected = {p.name: p for p in parameters(tool)}
    given = dict(given or {})
    prepared = Prepared({})
    unknown = sorted(set(given) - set(expected))
    if unknown:
        prepared.notes.append(
            f"Ignored {', '.join(map(repr, unknown))}: {name} takes {', '.join(expected)}."
        )
    for parameter in expected.values():
        value = given.get(parameter.name)
        if value is None or (value == "" and parameter.kind != "string"):
            if parameter.required:
                raise ValidationError(_missing(name, parameter))
            continue
        prepared.arguments[parameter.name] = _coerced(name, parameter, value, prepared.notes)
    return prepared


def _missing(tool: str, parameter: Parameter) -> str:
    return f"{tool} needs {parameter.name!r}: {parameter.description}"


def _coerced(tool: str, parameter: Parameter, value: Any, notes: list[str]) -> Any:
    if parameter.kind == "array":
        return _names(value)
    if parameter.kind == "integer":
        return _integer(tool, parameter, value, notes)
    if parameter.kind == "boolean":
        return _boolean(tool, parameter, value)
    if isinstance(value, list) and len(value) == 1:
        value = value[0]  # ["fastapi"] where one name is expected
    text = value if isinstance(value, str) else json.dumps(value)
    if parameter.required and not text.strip():
        raise ValidationError(_missing(tool, parameter))
    return text


def _names(value: Any) -> list[str]:
    """A list of names from a list, one name, or names separated by commas."""
    if isinstance(value, str):
        value = value.split(",") if "," in value else [value]
    if not isinstance(value, list | tuple):
        value = [value]
    return [str(v).strip() for v in value if str(v).strip()]


def _boolean(tool: str, parameter: Parameter, value: Any) -> bool:
    """True or false, also sent as text ("true", "yes", "1") or a number."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0", ""):
        return False
    raise ValidationError(
        f"{tool}: {parameter.name} is true or false, not {value!r} ({parameter.description})"
    )


def _integer(tool: str, parameter: Parameter, value: Any, notes: list[str]) -> int:
    try:
        number = int(float(value))
    except (TypeError, ValueError):
        raise ValidationError(
            f"{tool}: {parameter.name} must be a whole number, not {value!r} "
            f"({parameter.description})"
        ) from None
    low, high = RANGES.get((tool, parameter.name)) or RANGES.get(parameter.name, (None, None))
    clamped = max(low, number) if low is not None else number
    clamped = min(high, clamped) if high is not None else clamped
    if clamped != number:
        bounds = f"{low} to {high}" if high is not None else f"at least {low}"
        notes.append(f"{parameter.name}={number} is out of range ({bounds}); used {clamped}.")
    return clamped


def with_notes(result: str, notes: list[str]) -> str:
    """A tool's JSON result with the input notes in it (`input_notes` of an object; a list
    is wrapped as {"result": ..., "input_notes": ...}; other text gets them appended)."""
    if not notes:
        return result
    try:
        data = json.loads(result)
    except json.JSONDecodeError:
        return result + "\n\nInput notes: " + " ".join(notes)
    wrapped = (
        data | {"input_notes": notes}
        if isinstance(data, dict)
        else {
            "result": data,
            "input_notes": notes,
        }
    )
    return json.dumps(wrapped, ensure_ascii=False, indent=1)
