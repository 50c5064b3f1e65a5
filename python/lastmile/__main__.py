"""``python -m lastmile``: the same as the ``lastmile`` command."""

from lastmile.cli import entry

entry()
