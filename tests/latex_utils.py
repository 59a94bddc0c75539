"""Skip LaTeX compilation tests where the machine cannot compile the tables."""

import shutil
import subprocess

import pytest

#: The packages the workflow's LaTeX tables use (rederive.report.latex).
PACKAGES = ("booktabs.sty", "threeparttable.sty")


def latex_with_packages() -> bool:
    """pdflatex and the packages of :data:`PACKAGES` (Debian: texlive-latex-recommended
    and texlive-latex-extra)."""
    if shutil.which("pdflatex") is None or shutil.which("kpsewhich") is None:
        return False
    found = subprocess.run(["kpsewhich", *PACKAGES], capture_output=True, text=True)
    return len(found.stdout.split()) == len(PACKAGES)


NEEDS_LATEX = pytest.mark.skipif(
    not latex_with_packages(), reason=f"pdflatex with {', '.join(PACKAGES)} not installed"
)
