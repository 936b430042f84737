"""The public wire contract: commands, events and the log line, as msgspec Structs."""
