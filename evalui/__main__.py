import sys

from evalui.cli import main

sys.exit(main())
