"""docs/protocol.md's CURVE table for zeromq.js, with a real Node.js client: the
options ``curveServerKey``, ``curvePublicKey`` and ``curveSecretKey`` take the
40-character Z85 key text as the key port gives it, as is, and the handshake with a
real referee succeeds (its reply comes back).

Needs ``node`` and the ``zeromq`` npm package (v6) where Node.js finds it (for example
``NODE_PATH=/path/to/node_modules``); skips, saying which is missing, otherwise.
"""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

import msgpack
import pytest
import zmq

from lanqi.bench.process import LanqiService
from lanqi.protocol import PROTOCOL_VERSION
from lanqi.security import fetch_server_key

#: the client: the server's key (Z85 text) and the request (msgpack, hex) come in argv,
#: the reply goes out as hex on stdout
CLIENT = """
const zmq = require("zeromq")
const [endpoint, serverKey, request] = process.argv.slice(1)
async function main() {
  const ours = zmq.curveKeyPair()  // Z85 text too
  const dealer = new zmq.Dealer({
    curveServerKey: serverKey,
    curvePublicKey: ours.publicKey,
    curveSecretKey: ours.secretKey,
    receiveTimeout: 5000,
    linger: 0,
  })
  dealer.connect(endpoint)
  await dealer.send(Buffer.from(request, "hex"))
  const [reply] = await dealer.receive()
  console.log(reply.toString("hex"))
  dealer.close()
}
main().catch(error => { console.error(String(error)); process.exit(1) })
"""


def node_with_zeromq() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("needs node (Node.js)")
    found = subprocess.run(
        [node, "-e", 'require.resolve("zeromq")'], check=False, capture_output=True, timeout=30
    )
    if found.returncode != 0:
        pytest.skip("needs the zeromq npm package where node finds it (NODE_PATH)")
    return node


def test_zeromq_js_takes_the_z85_key_text_as_is(
    referee_service: LanqiService, zmq_context: zmq.Context[Any]
) -> None:
    node = node_with_zeromq()
    endpoint = referee_service.endpoints["requests"]
    key = fetch_server_key(endpoint, zmq_context).key
    assert key is not None and len(key) == 40
    request = msgpack.packb({"v": PROTOCOL_VERSION, "t": "list_games", "id": 7})
    run = subprocess.run(
        [node, "-e", CLIENT, endpoint, key, request.hex()],
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode == 0, run.stderr
    reply = msgpack.unpackb(bytes.fromhex(run.stdout.strip()))
    assert (reply["t"], reply["re"]) == ("games", 7)
