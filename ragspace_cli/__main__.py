"""`python -m ragspace_cli ...` runs the `ragspace` command."""

import sys

from ragspace_cli.main import main

sys.exit(main())
