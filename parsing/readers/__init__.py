"""The call readers of the stream scanner, one module per call syntax (:mod:`..scanner` drives them).

Each reader reads a call head up to the tool name and, once the scanner commits the call, the
call's arguments and closing text through the scanner core's small interface (:class:`._common.Core`),
keeping its state in typed dataclasses whose buffer offsets move when the buffer is compacted.
"""
