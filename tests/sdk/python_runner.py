"""One scripted session through Anthropic's own tool runner (PyPI
`anthropic`), with memcap's drop-in memory tool and a mocked HTTP transport:
no network. Each mocked reply holds the next turn's `tool_use` blocks; the
tool results the runner sends back are printed as JSON.

    python python_runner.py SESSION.json BASE_PATH
"""

import json
import sys

import httpx2 as httpx
from anthropic import Anthropic

# The one line a user changes: `from anthropic.tools import ...` before.
from memcap.anthropic import BetaLocalFilesystemMemoryTool

session = json.load(open(sys.argv[1], encoding="utf-8"))
sent_back = []


def reply(request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content)
    last = body["messages"][-1]
    if last["role"] == "user" and isinstance(last["content"], list):
        sent_back.append([
            {"content": block["content"], "is_error": bool(block.get("is_error", False))}
            for block in last["content"]
            if block.get("type") == "tool_result"
        ])
    turn = len(sent_back)
    if turn < len(session):
        content = [
            {"type": "tool_use", "id": f"toolu_{turn}_{i}", "name": "memory", "input": command}
            for i, command in enumerate(session[turn])
        ]
        stop = "tool_use"
    else:
        content, stop = [{"type": "text", "text": "Done."}], "end_turn"
    return httpx.Response(200, json={
        "id": f"msg_{turn}", "type": "message", "role": "assistant", "model": "claude-test",
        "content": content, "stop_reason": stop, "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    })


client = Anthropic(api_key="test", http_client=httpx.Client(transport=httpx.MockTransport(reply)))
memory = BetaLocalFilesystemMemoryTool(base_path=sys.argv[2])
runner = client.beta.messages.tool_runner(
    model="claude-test",
    max_tokens=1024,
    messages=[{"role": "user", "content": "Plan the project and keep notes."}],
    tools=[memory],
)
for _ in runner:
    pass
print(json.dumps(sent_back, ensure_ascii=False))
