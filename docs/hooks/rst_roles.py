"""Griffe extension for the API pages: the docstrings use reStructuredText roles (``:class:`~a.B```)
and ``::`` before literal blocks; show a role's target as code (``~`` keeps its last part) and end
such paragraphs with one colon, so the Markdown renderer gives code and code blocks."""

from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const):`(~?)([^`]+)`")
LITERAL_INTRO = re.compile(r"(?<=\S)::$", re.MULTILINE)


def _role(match: re.Match) -> str:
    target = match.group(2)
    return f"`{target.rsplit('.', 1)[-1] if match.group(1) else target}`"


class RstRoles(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            text = ROLE.sub(_role, obj.docstring.value)
            obj.docstring.value = LITERAL_INTRO.sub(":", text)
