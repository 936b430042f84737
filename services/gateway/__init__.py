"""The gateway: HTTP and WebSocket access to games for platforms and browsers (Starlette on uvicorn).

    app.py       the HTTP routes; problems.py maps every refusal to a status and a JSON Problem
    sockets.py   the WebSocket endpoints; live.py shares one NATS watch per game among its spectators
    games.py     open games (and play their bot seats), send a seat's commands and wait for their outcomes
    reads.py     views, the list of games, a game's feed a page at a time, finished games' logs and replays
    chat.py      a game's chat among its seats: lines said over NATS, the last few kept in memory
    tokens.py    signed seat tokens; keys.py the platform keys that open games
    limits.py    rate limits (token buckets) per platform key and per seat, chat lines included
    wire.py      the HTTP side's own messages; openapi.py the OpenAPI 3.1 document of it all
    server.py    uvicorn in the caller's event loop
    static/      the web page: the live table, the list of games, a finished game's replay

It is no FastStream subscriber: it only publishes commands (and games' chat lines, which nothing stores) and reads
what the services write.
"""
