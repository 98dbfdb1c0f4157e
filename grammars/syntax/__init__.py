"""Value syntaxes: how one argument value is spelled, one module per syntax.

Each module is the one home of its syntax's escapes and writer; the grammar builder
(``toolgram.compiler``) builds its string rules from the same tables, and the readers
(``toolgram.runtime``) read the same escapes, so a grammar and a parser cannot disagree on them.

- :mod:`.json_text`: JSON values (JSON formats, and non-string values of the XML formats).
- :mod:`.python_text`: Python literals (pythonic formats).
"""
