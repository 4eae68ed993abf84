"""The DocSets tab's forms for the selected DocSet: add files or a folder; rename, describe
or delete it. Each form is its components (a dataclass) with its own layout and wiring,
so a handler's outputs sit next to it."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr
from gradio.events import Dependency

from ragspace.actions import Actions
from ragspace.actions.source_requests import globs
from ragspace.models import Document, FolderOptions
from ragspace.sources.folder import FileOnDisk
from ragspace_ui.amounts import size_text
from ragspace_ui.error_messages import inline_errors
from ragspace_ui.escape import md, md_code
from ragspace_ui.folder_upload import (
    FOLDER_INPUT_ID,
    FOLDER_PATHS_ID,
    folder_files,
    folder_report,
    picked_summary,
)

NO_DOCSET_SELECTED = "_Create or select a DocSet to add files to it._"
# Events that set the selected DocSet (create, sample, rename, delete, the list refreshes)
# run one at a time, in the order they were asked for: a refresh asked for when the page
# loaded must not land after a DocSet created since and select nothing again (seen under
# load, after which the dropdown kept firing its change event).
DOCSET_LIST_LANE: dict[str, Any] = {"concurrency_id": "docset-list", "concurrency_limit": 1}


def upload_limits_text(actions: Actions) -> str:
    """The upload limits, shown before anything is uploaded."""
    return (
        f"Up to {size_text(actions.mode.max_upload_bytes)} per file. Text, code, HTML, PDF and "
        "notebooks are indexed, .zip archives unpacked; empty and binary files are skipped."
    )


def upload_report(name: str, documents: list[Document]) -> str:
    """What an upload did: files added (embedding in the background) and files skipped, why."""
    added = [d for d in documents if not d.error_message]
    skipped = [d for d in documents if d.error_message]
    lines: list[str] = []
    if added:
        lines.append(
            f"Added {len(added)} file(s) to **{md(name)}**; embedding runs in the background "
            "(follow it in the Embedding status tab):"
        )
        lines += [f"- {md_code(d.path)}" for d in added]
    else:
        lines.append(f"Nothing was added to **{md(name)}**.")
    if skipped:
        lines.append(f"\nSkipped {len(skipped)} file(s):")
        lines += [f"- {md_code(d.path)}: {md(d.error_message)}" for d in skipped]
    redacted = [item for d in added for item in d.redactions]
    if redacted:  # the text is indexed without them; say so, as a folder's skip list does
        lines.append(f"\nRedacted {len(redacted)} line(s) that look like secrets:")
        lines += [f"- {md_code(item.path)}: {md(item.reason)}" for item in redacted]
    return "\n".join(lines)


def upload_hint(chosen: bool, message: str | None) -> Any:
    """The upload message once the DocSet selection changed. The list refreshes after every
    change and may select the same DocSet again, or none when it was deleted meanwhile: the
    report or error of the last upload stays until the next one; otherwise the message is
    the hint to choose a DocSet while none is chosen."""
    if message and message != NO_DOCSET_SELECTED:
        return gr.update()
    return "" if chosen else NO_DOCSET_SELECTED


def select_docset(actions: Actions, name: str) -> Any:
    """Select a DocSet, sending the choices too: a value outside them fails the next event."""
    return gr.update(choices=[d.name for d in actions.docsets.all()], value=name)


def required_docset(docset: str | None) -> str:
    """The selected DocSet's name; an error asking to select one when none is."""
    if not docset:
        raise gr.Error("Select a DocSet first.")
    return docset


@dataclass
class UploadForm:
    """Files or a whole folder added to the selected DocSet."""

    files: gr.File
    upload: gr.Button
    folder: gr.File
    folder_paths: gr.Textbox
    folder_include: gr.Textbox
    folder_exclude: gr.Textbox
    folder_summary: gr.Markdown  # the folder picked: its files counted by type
    add_folder: gr.Button
    upload_message: gr.Markdown


def layout_upload_form(actions: Actions) -> UploadForm:
    """Lay out the upload form (inside the selected DocSet's column)."""
    files = gr.File(
        label="Files to add", file_count="multiple", type="filepath", elem_id="docset-files"
    )
    gr.Markdown(upload_limits_text(actions), elem_id="upload-limits")
    upload = gr.Button("Add files", variant="secondary", interactive=False)
    folder = gr.File(
        label="Or a whole folder (its .gitignore respected, binaries skipped)",
        file_count="directory",
        type="filepath",
        elem_id=FOLDER_INPUT_ID,
    )
    # where each file sits in the folder, filled in by the page (folder_upload.py)
    folder_paths = gr.Textbox(visible="hidden", elem_id=FOLDER_PATHS_ID)
    folder_summary = gr.Markdown(elem_id="folder-summary")
    with gr.Row():
        folder_include = gr.Textbox(label="Folder: include globs", placeholder="src/**")
        folder_exclude = gr.Textbox(label="Folder: exclude globs", placeholder="tests/**")
    add_folder = gr.Button("Add folder", variant="secondary", interactive=False)
    upload_message = gr.Markdown(NO_DOCSET_SELECTED, elem_id="upload-message")
    return UploadForm(
        files,
        upload,
        folder,
        folder_paths,
        folder_include,
        folder_exclude,
        folder_summary,
        add_folder,
        upload_message,
    )


def wire_upload_form(actions: Actions, form: UploadForm, selected: gr.Dropdown) -> list[Dependency]:
    """Attach the upload handlers; returns the events that add documents."""

    @inline_errors(outputs=2)
    def on_upload(docset: str | None, paths: list[str] | None) -> tuple[str, None]:
        name = required_docset(docset)
        uploads = [FileOnDisk.at(Path(p).name, Path(p)) for p in paths or []]  # read later
        documents = actions.sources.add_files(name, uploads)
        for p in paths or []:  # added: the copy in Gradio's cache must not be served any more
            Path(p).unlink(missing_ok=True)
        return upload_report(name, documents), None

    @inline_errors(outputs=3)
    def on_add_folder(
        docset: str | None, paths: list[str] | None, listing: str, include: str, exclude: str
    ) -> tuple[str, None, str]:
        name = required_docset(docset)
        if not paths:
            raise gr.Error("Choose a folder first.")
        folder_name, uploads = folder_files(paths, listing)
        options = FolderOptions(include=globs(include), exclude=globs(exclude))
        report = actions.sources.add_uploaded_folder(name, folder_name, uploads, options)
        for p in paths:  # added: the copies in Gradio's cache must not be served any more
            Path(p).unlink(missing_ok=True)
        return folder_report(name, folder_name, report), None, ""

    def on_docset_chosen(docset: str | None, message: str | None) -> tuple[Any, Any, Any]:
        chosen = bool(docset)
        button = gr.update(interactive=chosen, variant="primary" if chosen else "secondary")
        return button, gr.update(interactive=chosen), upload_hint(chosen, message)

    f = form
    f.folder_paths.change(
        picked_summary, [f.folder_paths], [f.folder_summary], show_progress="hidden"
    )
    selected.change(
        on_docset_chosen,
        [selected, f.upload_message],
        [f.upload, f.add_folder, f.upload_message],
        preprocess=False,
        show_progress="hidden",  # never cover an upload's report with a spinner
    )
    return [
        f.upload.click(on_upload, [selected, f.files], [f.upload_message, f.files]),
        f.add_folder.click(
            on_add_folder,
            [selected, f.folder, f.folder_paths, f.folder_include, f.folder_exclude],
            [f.upload_message, f.folder, f.folder_paths],
        ),
    ]


@dataclass
class ManageForm:
    """Rename, describe or delete the selected DocSet (deleting asks first)."""

    rename_to: gr.Textbox
    rename: gr.Button
    describe_as: gr.Textbox
    describe: gr.Button
    delete: gr.Button
    confirm_row: gr.Row
    confirm_text: gr.Markdown
    confirm: gr.Button
    cancel: gr.Button
    manage_message: gr.Markdown


def layout_manage_form() -> ManageForm:
    """Lay out the rename, describe and delete form, folded away."""
    with gr.Accordion("Rename, describe or delete", open=False):
        rename_to = gr.Textbox(label="New name")
        rename = gr.Button("Rename")
        describe_as = gr.Textbox(label="New description", lines=2)
        describe = gr.Button("Save description")
        delete = gr.Button("Delete DocSet…", variant="stop")
        with gr.Row(visible=False) as confirm_row:
            confirm_text = gr.Markdown()
            confirm = gr.Button("Yes, delete it", variant="stop")
            cancel = gr.Button("Cancel")
        manage_message = gr.Markdown(elem_id="manage-message")
    return ManageForm(
        rename_to,
        rename,
        describe_as,
        describe,
        delete,
        confirm_row,
        confirm_text,
        confirm,
        cancel,
        manage_message,
    )


def wire_manage_form(actions: Actions, form: ManageForm, selected: gr.Dropdown) -> list[Dependency]:
    """Attach the rename, describe and delete handlers; returns the events that change
    the DocSet list."""

    @inline_errors(outputs=3)
    def on_rename(docset: str | None, new: str) -> tuple[str, Any, str]:
        renamed = actions.docsets.rename(required_docset(docset), new)
        return f"Renamed to **{md(renamed.name)}**.", select_docset(actions, renamed.name), ""

    @inline_errors(outputs=1)
    def on_describe(docset: str | None, description: str) -> str:
        actions.docsets.describe(required_docset(docset), description)
        return "Description saved."

    @inline_errors(outputs=3)
    def on_delete_request(docset: str | None) -> tuple[str, Any, str]:
        name = required_docset(docset)
        return "", gr.update(visible=True), f"Delete **{md(name)}** and all its documents?"

    @inline_errors(outputs=3)
    def on_delete(docset: str | None) -> tuple[str, Any, Any]:
        name = required_docset(docset)
        actions.docsets.delete(name)
        return f"Deleted DocSet **{md(name)}**.", gr.update(visible=False), gr.update(value=None)

    f = form
    changed = [
        f.rename.click(
            on_rename,
            [selected, f.rename_to],
            [f.manage_message, selected, f.rename_to],
            **DOCSET_LIST_LANE,
        ),
        f.describe.click(on_describe, [selected, f.describe_as], [f.manage_message]),
        f.confirm.click(
            on_delete, [selected], [f.manage_message, f.confirm_row, selected], **DOCSET_LIST_LANE
        ),
    ]
    f.delete.click(on_delete_request, [selected], [f.manage_message, f.confirm_row, f.confirm_text])
    f.cancel.click(lambda: gr.update(visible=False), None, [f.confirm_row])
    return changed
