# One image for every lanqi service: referee, matchmaker, bots.
FROM python:3.11-slim

# fairy-stockfish: a real xiangqi engine for `lanqi bot --engine uci:/usr/games/fairy-stockfish`
RUN apt-get update \
    && apt-get install -y --no-install-recommends fairy-stockfish \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY shared ./shared
COPY services ./services
COPY frontends ./frontends
RUN pip install --no-cache-dir .

ENV LANQI_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 5050 5051 5052 5053
ENTRYPOINT ["lanqi"]
CMD ["serve", "--lan", "--advertise", "127.0.0.1"]
