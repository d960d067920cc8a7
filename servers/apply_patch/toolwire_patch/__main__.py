"""`python -m toolwire_patch`: the same as the `toolwire-patch` command."""

from toolwire_patch.cli import main

if __name__ == "__main__":
    main()
