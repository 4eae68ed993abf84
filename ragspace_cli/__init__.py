"""The `ragspace` command line: a front end beside `ragspace_ui`, over the same actions.

Entry point `ragspace_cli.main:main` (the `ragspace` script); also `python -m ragspace_cli`.
"""
