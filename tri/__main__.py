"""`python -m tri` runs the command line."""

import sys

from tri.cli import main

sys.exit(main())
