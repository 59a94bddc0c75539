"""Skip LaTeX compilation tests where the machine cannot compile the tables."""

import shutil
import subprocess

import pytest


def latex_with_booktabs() -> bool:
    """pdflatex and the booktabs package (texlive-latex-recommended on Debian)."""
    if shutil.which("pdflatex") is None or shutil.which("kpsewhich") is None:
        return False
    found = subprocess.run(["kpsewhich", "booktabs.sty"], capture_output=True, text=True)
    return bool(found.stdout.strip())


NEEDS_LATEX = pytest.mark.skipif(
    not latex_with_booktabs(), reason="pdflatex with booktabs.sty not installed"
)
