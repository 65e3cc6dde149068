"""Sphinx configuration: MyST pages, the Furo theme, autodoc over the package.

Build with ``make docs`` (warnings are errors). The environment, agents and API pages
are the modules' own docstrings (reStructuredText with Sphinx roles, read by autodoc),
and the results pages are written by ``scripts/results_pages.py`` from the JSON records
in ``results/data``, so no page repeats what the code or a measurement already says.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # grove_env from the checkout, installed or not

import grove_env  # noqa: E402

project = "grove-env"
author = "grove-env contributors"
copyright = "grove-env contributors"  # noqa: A001 - Sphinx's name
release = version = grove_env.__version__

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.viewcode"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "results/data", "**/.ipynb_checkpoints"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

# The optional extras' modules (Ray RLlib, OpenSpiel) are documented where they are
# not installed: autodoc imports them against stand-ins.
# Docstrings are reStructuredText; a few dataclasses list their fields Google-style
# ("Attributes:"), which napoleon reads. Section titles underlined in reST ("Arguments"
# in grove_v1) are not numpy sections, so numpy parsing is off.
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True

autodoc_mock_imports = ["ray", "pyspiel", "open_spiel"]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}

html_theme = "furo"
html_title = f"grove-env {release}"
html_static_path: list[str] = []
