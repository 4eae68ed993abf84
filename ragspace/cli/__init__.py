"""The `ragspace` command line (entry point `ragspace.cli.main:main`)."""
