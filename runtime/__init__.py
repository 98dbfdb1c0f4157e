"""Runtime: output parsers, value conversion and generation."""
