"""CLI subcommands; each ``<name>_cmd`` module has ``add_parser`` and ``run``."""
