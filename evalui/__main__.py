import sys

from evalui.cli import main

# Guarded: worker processes (multiprocessing's spawn) import the main module again, and must not
# run the command a second time.
if __name__ == "__main__":
    sys.exit(main())
