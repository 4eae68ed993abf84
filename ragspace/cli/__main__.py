"""`python -m ragspace.cli ...` runs the `ragspace` command."""

import sys

from ragspace.cli.main import main

sys.exit(main())
