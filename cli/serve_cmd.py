"""`zioncheck serve`: run the services for real use, all or one by name."""
import asyncio
import signal
import sys

from services.app import SERVICES, Services
from services.embedded import nats_url
from services.observability import configure_logging, serve_metrics


def add(sub) -> None:
    p = sub.add_parser("serve", help="run the dealer, table, scoring and projector services (all, or one by name)",
                       description="Run services until interrupted. Several instances may run against one "
                                   "NATS server or cluster; they share durable consumers.")
    p.add_argument("services", nargs="*", metavar="SERVICE",
                   help=f"which services ({', '.join(SERVICES)}; default all)")
    p.add_argument("--nats-url", help="an existing NATS server or cluster (default: start an embedded one)")
    p.add_argument("--replicas", type=int, default=1, help="JetStream replicas for new streams (3 on a cluster)")
    p.add_argument("--metrics-port", type=int, default=0, help="serve Prometheus metrics on this port")
    p.add_argument("--log-level", default="info", help="log level (default info)")
    p.set_defaults(func=main)


def main(args) -> int:
    unknown = sorted(set(args.services) - set(SERVICES))
    if unknown:
        print(f"zioncheck serve: unknown service {unknown[0]!r} (choose from {', '.join(SERVICES)})", file=sys.stderr)
        return 2
    configure_logging(args.log_level)
    serve_metrics(args.metrics_port)
    with nats_url(args.nats_url) as url:
        asyncio.run(_serve(args.services or list(SERVICES), url, args.replicas))
    return 0


async def _serve(names: list[str], url: str, replicas: int) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    services = await Services().start(names, url, replicas=replicas)
    print(f"serving {', '.join(names)} on {url}", flush=True)
    await stop.wait()
    await services.stop()
