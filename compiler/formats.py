"""JSON Schema ``format`` values toolgram enforces, each as one anchored pattern (ECMAScript syntax).

The string builders compile them as they compile a schema's ``pattern`` (:mod:`toolgram.compiler.regex`),
so every dialect and value syntax gets the same language and the strict parser reads it back.
The grammars follow the RFCs (as llguidance does); what they cannot say is listed in :data:`LIMITS`.
A format not in :data:`FORMATS` is an annotation (JSON Schema's default).
"""

from __future__ import annotations

_D2 = "[0-9]{2}"
_LEAP_YEAR = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)"
#: RFC 3339 full-date: days per month, 29 February in leap years only
_DATE = (
    "(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
    f"|02-(?:0[1-9]|1[0-9]|2[0-8]))|{_LEAP_YEAR}-02-29)"
)
_OFFSET = "(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
_FRAC = r"(?:\.[0-9]+)?"
#: RFC 3339 full-time; a leap second (:60) only at 23:59 UTC (Z or a zero offset)
_TIME = (
    f"(?:(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]{_FRAC}{_OFFSET}"
    f"|23:59:60{_FRAC}(?:[Zz]|[+-]00:00))"
)
_DUR_TIME = "T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)"
#: RFC 3339 appendix A (ISO 8601 durations)
_DURATION = (
    f"P(?:(?:[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?|[0-9]+M(?:[0-9]+D)?|[0-9]+D)(?:{_DUR_TIME})?"
    f"|{_DUR_TIME}|[0-9]+W)"
)
_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_IPV4 = rf"{_OCTET}(?:\.{_OCTET}){{3}}"
_H = "[0-9A-Fa-f]{1,4}"


def _ipv6() -> str:
    """RFC 4291 section 2.2 text forms: eight groups, one ``::`` for a run of zero groups, the last
    two groups as a dotted IPv4 address; no zone index."""
    forms = [f"(?:{_H}:){{7}}{_H}", f"(?:{_H}:){{6}}{_IPV4}"]
    for left in range(8):  # groups before "::" (IPv4-free), at most 7 in all
        head = "" if left == 0 else f"(?:{_H}:){{{left - 1}}}{_H}"
        right = 7 - left
        tail = "" if right == 0 else f"(?:(?:{_H}:){{0,{right - 1}}}{_H})?"
        forms.append(f"{head}::{tail}")
    for left in range(6):  # with a trailing IPv4 address (two groups' worth)
        head = "" if left == 0 else f"(?:{_H}:){{{left - 1}}}{_H}"
        forms.append(f"{head}::(?:{_H}:){{0,{5 - left}}}{_IPV4}")
    return "(?:" + "|".join(forms) + ")"


_IPV6 = _ipv6()
#: RFC 1123 host name label
_LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOSTNAME = rf"{_LABEL}(?:\.{_LABEL})*"
#: RFC 5322 atext, RFC 5321 Dot-string / Quoted-string / Domain / address-literal
_ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_EMAIL = (
    rf'(?:{_ATEXT}+(?:\.{_ATEXT}+)*|"(?:[ !#-\[\]-~]|\\[ -~])*")'
    rf"@(?:{_HOSTNAME}|\[(?:{_IPV4}|IPv6:{_IPV6})\])"
)
# RFC 3986 section 3
_PCT = "%[0-9A-Fa-f]{2}"
_UNRESERVED_SUB = r"A-Za-z0-9\-._~!$&'()*+,;="
_PCHAR = f"(?:[{_UNRESERVED_SUB}:@]|{_PCT})"
_AUTHORITY = (
    f"(?:(?:[{_UNRESERVED_SUB}:]|{_PCT})*@)?"
    rf"(?:\[(?:{_IPV6}|[vV][0-9A-Fa-f]+\.[{_UNRESERVED_SUB}:]+)\]|(?:[{_UNRESERVED_SUB}]|{_PCT})*)"
    "(?::[0-9]*)?"
)
_URI = (
    "[A-Za-z][A-Za-z0-9+.-]*:"
    f"(?://{_AUTHORITY}(?:/{_PCHAR}*)*|/(?:{_PCHAR}+(?:/{_PCHAR}*)*)?|{_PCHAR}+(?:/{_PCHAR}*)*|)"
    f"(?:\\?(?:{_PCHAR}|[/?])*)?(?:#(?:{_PCHAR}|[/?])*)?"
)

#: format name -> anchored pattern of the strings it admits
FORMATS: dict[str, str] = {
    "date-time": f"^{_DATE}[Tt]{_TIME}$",
    "date": f"^{_DATE}$",
    "time": f"^{_TIME}$",
    "duration": f"^{_DURATION}$",
    "email": f"^{_EMAIL}$",
    "hostname": f"^{_HOSTNAME}$",
    "ipv4": f"^{_IPV4}$",
    "ipv6": f"^{_IPV6}$",
    "uuid": "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$",
    "uri": f"^{_URI}$",
}

#: what the grammars admit beyond the RFCs (length limits a grammar would have to count)
LIMITS: dict[str, str] = {
    "email": "the 64-character local part and 254-character address limits are not counted",
    "hostname": "the 253-character total is not counted (each label's 63 is)",
    "time": "a leap second is admitted at 23:59:60 with a zero offset only (other offsets' leap seconds refused)",
}


def format_pattern(name: object) -> str | None:
    """The pattern of a ``format`` toolgram enforces, or None (an unknown format is an annotation)."""
    return FORMATS.get(name) if isinstance(name, str) else None


__all__ = ["FORMATS", "LIMITS", "format_pattern"]
