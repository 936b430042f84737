"""`zioncheck serve`: run the services for real use, all or one by name."""
import asyncio
import signal
import sys

from cli.options import add_bus
from services.access import Access
from services.app import SERVICES, Services, TopologyMissing
from services.embedded import bus
from services.gateway.server import Running
from services.observability import configure_logging, serve_metrics

# Not a FastStream subscriber: the HTTP and WebSocket gateway runs beside them, and only when named.
CHOICES = (*SERVICES, "gateway")


class NoGateway(Exception):
    """The gateway's address cannot be bound."""


def add(sub) -> None:
    p = sub.add_parser("serve", help="run the dealer, table, scoring and projector services (all, or one by name)",
                       description="Run services until interrupted. Several instances may run against one "
                                   "NATS server or cluster; they share durable consumers. `gateway` serves "
                                   "HTTP and WebSocket access and the web page (see docs/openapi.json); it "
                                   "runs only when named.")
    p.add_argument("services", nargs="*", metavar="SERVICE",
                   help=f"which services ({', '.join(CHOICES)}; default {', '.join(SERVICES)})")
    add_bus(p, "start an embedded one")
    p.add_argument("--replicas", type=int, help="JetStream replicas for new streams (3 on a cluster); given, it "
                                                "also changes existing streams' replicas, and says so (default: "
                                                "new streams get 1, existing ones keep theirs)")
    p.add_argument("--metrics-port", type=int, default=0, help="serve Prometheus metrics on this port")
    p.add_argument("--log-level", default="info", help="log level (default info)")
    p.add_argument("--host", default="127.0.0.1", help="the gateway's address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="the gateway's port (default 8080)")
    p.set_defaults(func=main)


def main(args) -> int:
    unknown = sorted(set(args.services) - set(CHOICES))
    if unknown:
        print(f"zioncheck serve: unknown service {unknown[0]!r} (choose from {', '.join(CHOICES)})", file=sys.stderr)
        return 2
    configure_logging(args.log_level)
    serve_metrics(args.metrics_port)
    with bus(args.nats_url, args.credentials) as access:
        try:
            asyncio.run(_serve(args.services or list(SERVICES), access, args.replicas, args.host, args.port))
        except (NoGateway, TopologyMissing, PermissionError) as error:
            print(f"zioncheck serve: {error}", file=sys.stderr)
            return 2
    return 0


async def _serve(names: list[str], access: Access, replicas: int | None, host: str, port: int) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    subscribers = [name for name in names if name != "gateway"]
    services = await Services().start(subscribers, access, replicas=replicas)
    try:
        gateway = await Running.start(access, host, port) if "gateway" in names else None
    except OSError as error:
        await services.stop()
        raise NoGateway(f"cannot serve the gateway on {host}:{port}: {error.strerror}") from None
    print(f"serving {', '.join(names)} on {', '.join(access.servers)}", flush=True)
    if gateway:
        print(f"gateway on {gateway.url}/ (API: {gateway.url}/openapi.json)", flush=True)
    await stop.wait()
    if gateway:
        await gateway.stop()
    await services.stop()
