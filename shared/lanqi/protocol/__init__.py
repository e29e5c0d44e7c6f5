"""The lanqi wire protocol: every message, the codec and the endpoints.

Services and frontends import messages from here and never build wire maps by hand.
"""

from lanqi.protocol.codec import (
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    decode,
    decode_payload,
    encode,
    encode_event,
    error_for,
)
from lanqi.protocol.messages import *  # noqa: F403 - the message classes are the API
from lanqi.protocol.messages import __all__ as _message_names
from lanqi.protocol.schema import Message, ProtocolError, message_types

__all__ = [
    "MAX_MESSAGE_BYTES",
    "PROTOCOL_VERSION",
    "Message",
    "ProtocolError",
    "decode",
    "decode_payload",
    "encode",
    "encode_event",
    "error_for",
    "message_types",
    *_message_names,
]
