"""`zioncheck credentials`: the logins of the bus, one per role, and the server files that hold them."""
import sys
from pathlib import Path

from zioncheck.services.bus.access import (
    DEFAULT_PARTITIONS,
    ROLES,
    add_user,
    make_credentials,
    read_credentials,
    rights_of,
    write_server_files,
)
from zioncheck.services.bus.embedded import CREDENTIALS
from zioncheck.services.bus.topology import DEFAULT_TENANT

LOOPBACK_ROUTES = "127.0.0.1:6231,127.0.0.1:6232,127.0.0.1:6233"


def add(sub) -> None:
    p = sub.add_parser("credentials", help="list, make and add the logins each role uses on NATS",
                       description="Every service, platform and spectator logs in to NATS as a user of one role, "
                                   "whose subject permissions the server enforces (docs/security.md). This makes "
                                   "the missing role logins in a folder (files of mode 0600, one JSON file a "
                                   "user: give each party its own file and nothing else), lists them without "
                                   "their passwords, adds more (a second platform, say), and writes the files a "
                                   "deployment's server configuration includes (deploy/README.md).")
    p.add_argument("--dir", default=str(CREDENTIALS), metavar="DIR",
                   help=f"the folder of logins (default {CREDENTIALS}, the embedded server's)")
    p.add_argument("--add", metavar="USER", help="add a login named USER (letters, digits, - and _)")
    p.add_argument("--role", choices=ROLES, help="the role of the login --add makes; a platform login is a "
                                                 "tenant of its own name, whose games no other tenant sees")
    p.add_argument("--tenant", metavar="TENANT",
                   help=f"with --add and --role spectator: the tenant whose games it watches "
                        f"(default {DEFAULT_TENANT}, the embedded platform login's)")
    p.add_argument("--deploy", metavar="DIR",
                   help="make DIR/credentials/ and write DIR/accounts.conf and DIR/routes.conf for "
                        "deploy/single.conf and deploy/cluster/*.conf (for example deploy/secrets)")
    p.add_argument("--routes", default=LOOPBACK_ROUTES, metavar="HOST:PORT,...",
                   help=f"with --deploy: the cluster's route addresses (default {LOOPBACK_ROUTES})")
    p.add_argument("--partitions", type=int, default=DEFAULT_PARTITIONS, metavar="P",
                   help=f"with --deploy: spread games over P partitions, each with its own commands and log "
                        f"streams (default {DEFAULT_PARTITIONS}; docs/scaling.md). A store keeps the P it was "
                        f"made with")
    p.add_argument("--replicas", type=int, default=1, choices=(1, 3, 5),
                   help="with --deploy: the replicas the streams will have (default 1; 3 for the cluster): the "
                        "account's storage cap counts every replica's bytes (ZIONCHECK_STORE_GIB times this)")
    p.set_defaults(func=main)


def main(args) -> int:
    if bool(args.add) != bool(args.role):
        print("zioncheck credentials: --add USER and --role ROLE go together", file=sys.stderr)
        return 2
    if args.tenant and args.role != "spectator":
        print("zioncheck credentials: --tenant goes with --add USER --role spectator (a platform login is a "
              "tenant of its own name)", file=sys.stderr)
        return 2
    folder = Path(args.deploy) / "credentials" if args.deploy else Path(args.dir)
    try:
        make_credentials(folder)
        if args.add:
            if args.add in read_credentials(folder):
                print(f"zioncheck credentials: {args.add!r} exists already in {folder}", file=sys.stderr)
                return 2
            add_user(folder, args.add, args.role, args.tenant)
        if args.deploy:
            routes = [route.strip() for route in args.routes.split(",") if route.strip()]
            for path in write_server_files(Path(args.deploy), routes, args.partitions, args.replicas):
                print(f"wrote {path}")
    except (OSError, ValueError) as error:
        print(f"zioncheck credentials: {error}", file=sys.stderr)
        return 2
    print(f"logins in {folder} (a running server reads new ones on `nats-server --signal reload`):")
    for user, credential in sorted(read_credentials(folder).items()):
        rights = rights_of(credential, args.partitions)
        tenant = f" tenant {credential.tenant}" if credential.tenant else ""
        print(f"  {user:<12} role {credential.role:<10}{tenant} {folder / (user + '.json')}"
              f"  ({len(rights.publish)} publish, {len(rights.subscribe) + 1} subscribe permissions)")
    return 0
