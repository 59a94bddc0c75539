"""Report captions (``rules/report/**/*.rst``) as HTML fragments for the site.

The captions are the ones ``snakemake --report`` shows: Jinja templates over
``snakemake.params`` written in reStructuredText. The site renders the same
files, so there is one copy of every caption.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import jinja2
from docutils.core import publish_parts
from markupsafe import Markup

from rederive.errors import InputError

# Characters that start reStructuredText inline markup; a label such as
# "a*b" must read as text inside the caption's own **bold** markup.
_RST_SPECIAL = re.compile(r"([\\`*_|<>\[\]:])")

_DOCUTILS = {
    "report_level": 5,  # no "System Message" boxes in the page
    "halt_level": 5,
    "raw_enabled": False,  # a caption cannot smuggle raw HTML in
    "file_insertion_enabled": False,
    "input_encoding": "unicode",
    "output_encoding": "unicode",
    "embed_stylesheet": False,
    "initial_header_level": 4,
}


def rst_text(value):
    """A parameter value as reStructuredText that reads as literal text."""
    if isinstance(value, str):
        return _RST_SPECIAL.sub(r"\\\1", value)
    return value


def render_caption(path: str | Path, params: dict) -> Markup:
    """The caption at ``path`` with ``snakemake.params`` set to ``params``, as HTML.

    Raises
    ------
    InputError
        When the caption names a parameter ``params`` lacks (the site would
        otherwise print a caption with a hole in it).
    """
    path = Path(path)
    source = path.read_text(encoding="utf-8")
    namespace = SimpleNamespace(
        params=SimpleNamespace(**{k: rst_text(v) for k, v in params.items()})
    )
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)
    try:
        text = env.from_string(source).render(snakemake=namespace)
    except jinja2.UndefinedError as exc:
        raise InputError(
            f"caption uses a parameter the site was not given ({exc.message}); "
            "give the rule that writes the file a params entry of that name",
            file=str(path),
        ) from exc
    body = publish_parts(text, writer="html5", settings_overrides=_DOCUTILS)["body"]
    return Markup(body)
