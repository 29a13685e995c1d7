"""``spg serve``: the checker and the drafter in a browser, for drafters who never open a terminal (docs/serve.md).

Starlette and uvicorn, not Gradio: the page shows the lint report's own HTML (spg.lint.html) under the report's
Content-Security-Policy, everything is served from the package, and ``spg serve`` answers in about a second, where
importing Gradio alone took 3.7 to 6.2 s on the 2-core CPU (docs/serve.md has the measurement). The app is
spg.serve.app; drafting, one job at a time, is spg.serve.drafter.
"""
