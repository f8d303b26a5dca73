"""`python -m tco` runs the command line, like the `tco` console script."""

from .cli import main

if __name__ == "__main__":
    main()
