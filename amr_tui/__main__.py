import sys

from amr_tui.cli.main import main

if __name__ == "__main__":  # not when a worker process imports it (services/session/parsepool.py)
    sys.exit(main())
