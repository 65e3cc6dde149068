"""Play, watch and replay In a Grove in the browser: ``grove-web`` (extra ``web``).

The server (:mod:`grove_env.web.app`, Starlette served by uvicorn) holds every game
(:mod:`grove_env.web.sessions`) and sends a seat's page only that seat's information
state (:mod:`grove_env.web.views`); the page and its assets are in ``static/``. Run it
with ``grove-web`` or ``python -m grove_env.web`` (:mod:`grove_env.web.cli`).
"""
