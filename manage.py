#!/usr/bin/env python
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "atlas.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    except ImproperlyConfigured as error:
        # A setting read from the environment that cannot be used: its message says which
        # and why, and a traceback would only bury it.
        sys.exit(f"Atlas is not configured: {error}")


if __name__ == "__main__":
    main()
