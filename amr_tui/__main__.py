import sys

from amr_tui.cli.main import main

sys.exit(main())
