"""Drives Toad (PyPI `batrachian-toad`) headless with Textual's pilot, as
`toad acp COMMAND PROJECT_DIR` starts it, and samples what it renders.

    python toad_driver.py COMMAND PROJECT_DIR PROMPT

Puts PROMPT into Toad's prompt box once the agent is ready, presses Enter, and
every 200 ms until the agent's turn is over prints one JSON line to stdout:
{"t": seconds since the prompt was sent, "cards": [the rendered header of
each tool-call card, as text]}; the last one is taken after the turn is
over. Waits without a time limit: the caller ends it if it hangs.
"""

import __future__
import asyncio
import json
import sys
import time
from importlib.machinery import PathFinder, SourceFileLoader

# Toad is written for Python 3.14, whose annotations are evaluated lazily
# (PEP 649). On Python 3.13, its modules are compiled with postponed
# annotations (PEP 563) so that they import; the one place that reads
# annotations at run time is bridged below.
if sys.version_info < (3, 14):

    class _LazyAnnotations(SourceFileLoader):
        def get_code(self, fullname):
            path = self.get_filename(fullname)
            flags = __future__.annotations.compiler_flag
            return compile(
                self.get_data(path), path, "exec", flags=flags, dont_inherit=True
            )

    class _ToadFinder(PathFinder):
        @classmethod
        def find_spec(cls, name, path=None, target=None):
            if name != "toad" and not name.startswith("toad."):
                return None
            spec = PathFinder.find_spec(name, path, target)
            if spec is not None and isinstance(spec.loader, SourceFileLoader):
                spec.loader = _LazyAnnotations(spec.loader.name, spec.loader.path)
            return spec

    sys.meta_path.insert(0, _ToadFinder)
    # The one 3.14 library class it uses, for its file-path search (not
    # used here); threads stand in for subinterpreters.
    import concurrent.futures

    concurrent.futures.InterpreterPoolExecutor = concurrent.futures.ThreadPoolExecutor

from textual.worker import WorkerState  # noqa: E402
from toad.app import ToadApp  # noqa: E402
from toad.widgets.conversation import Conversation  # noqa: E402
from toad.widgets.path_search import PathSearch  # noqa: E402
from toad.widgets.prompt import PromptTextArea  # noqa: E402
from toad.widgets.tool_call import ToolCallHeader  # noqa: E402

if sys.version_info < (3, 14):
    # Its JSON-RPC layer reads the handlers' signatures for their types, which
    # are strings there now: have them evaluated.
    import functools
    import inspect

    import toad.jsonrpc

    toad.jsonrpc.signature = functools.partial(inspect.signature, eval_str=True)

OUT = sys.stdout


def emit(record):
    OUT.write(json.dumps(record) + "\n")
    OUT.flush()


def agent_data(command):
    """What `toad acp COMMAND` builds for the agent (toad/cli.py)."""
    name = command.split(" ", 1)[0].lower()
    return {
        "identity": f"{name}.custom.batrachian.ai",
        "name": command.partition(" ")[0],
        "short_name": "agent",
        "url": "https://github.com/batrachianai/toad",
        "protocol": "acp",
        "type": "coding",
        "author_name": "",
        "author_url": "",
        "publisher_name": "",
        "publisher_url": "",
        "description": "Agent launched from CLI",
        "tags": [],
        "help": "",
        "run_command": {"*": command},
        "actions": {},
    }


def rendered(widget):
    """The text of the lines a widget renders."""
    lines = widget.render_lines(widget.region.reset_offset)
    return "\n".join("".join(s.text for s in line) for line in lines).strip()


async def until(pilot, condition):
    while not condition():
        await pilot.pause(0.05)


def path_search_busy(app):
    """Whether Toad's file-path index is still being rebuilt."""
    return any(
        isinstance(w.node, PathSearch)
        and w.state in (WorkerState.PENDING, WorkerState.RUNNING)
        for w in app.workers
    )


async def settle(pilot, app):
    """Waits for the work Toad starts when a turn ends: a turn that wrote a
    file has it rescan the project (toad/widgets/conversation.py, the end of
    a turn calls Prompt.project_directory_updated), and a scan still running
    when the app exits queries widgets already gone and fails the app."""
    quiet = 0
    while quiet < 3:
        await pilot.pause(0.1)
        quiet = 0 if path_search_busy(app) else quiet + 1


async def main(command, project_dir, prompt):
    app = ToadApp(agent_data=agent_data(command), project_dir=project_dir)
    async with app.run_test(size=(200, 60)) as pilot:
        await until(pilot, lambda: app.screen.query(Conversation))
        conversation = app.screen.query_one(Conversation)
        await until(pilot, lambda: conversation.agent_ready)
        area = app.screen.query_one(PromptTextArea)
        area.focus()
        area.insert(prompt)
        await pilot.press("enter")
        start = time.monotonic()
        await until(pilot, lambda: conversation.turn == "agent")
        while True:
            over = conversation.turn != "agent"
            # A header mounted by a recompose but not laid out yet has no size.
            headers = [h for h in app.screen.query(ToolCallHeader) if h.size.area]
            cards = [rendered(h) for h in headers]
            emit({"t": round(time.monotonic() - start, 3), "cards": cards})
            if over:
                break
            await pilot.pause(0.2)
        await settle(pilot, app)
        app.exit()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
