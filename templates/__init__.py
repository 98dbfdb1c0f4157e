"""toolgram's own per-format chat templates (ChatML-based jinja files)."""
