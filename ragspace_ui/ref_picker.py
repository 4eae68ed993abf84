"""The chat tab's version picker: which ref of a versioned DocSet a question searches."""

from typing import Any

import gradio as gr

from ragspace.actions import Actions

ALL_REFS = "*"  # the ref selector's "every version" entry (no git ref can be "*")


def ref_picker() -> gr.Dropdown:
    """The ref to search, shown only when the DocSet is indexed at several."""
    return gr.Dropdown(
        label="Version (ref)",
        info="This DocSet is indexed at several refs: one, or all (each source names its ref).",
        choices=[("All refs", ALL_REFS)],
        value=ALL_REFS,
        visible=False,
        interactive=True,
        elem_id="ref-pick",
    )


def ref_choices(
    actions: Actions, selected: list[str] | None, current: str | None = None
) -> dict[str, Any]:
    """The ref selector: shown, with "all refs" and each ref, when the one chosen DocSet is
    indexed at more than one ref (a still indexed `current` choice stays); hidden (every
    version searched) otherwise."""
    refs = actions.docsets.refs(selected[0]) if selected and len(selected) == 1 else []
    if len(refs) < 2:
        return gr.update(choices=[("All refs", ALL_REFS)], value=ALL_REFS, visible=False)
    choices = [("All refs", ALL_REFS)] + [(f"{r.ref} @ {r.resolved_sha[:12]}", r.ref) for r in refs]
    kept = current if current in {r.ref for r in refs} else ALL_REFS
    return gr.update(choices=choices, value=kept, visible=True)


def chosen_ref(value: str | None) -> str | None:
    """The ref to search, or None for every version."""
    return None if not value or value == ALL_REFS else value
