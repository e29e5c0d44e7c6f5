"""lanqi.web: the browser frontend's gateway (HTTP + WebSocket) and its pages."""
