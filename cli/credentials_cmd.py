"""`zioncheck credentials`: the logins of the bus, one per role, and the server files that hold them."""
from pathlib import Path

from zioncheck.cli import words
from zioncheck.cli.options import CommandFailed, whole
from zioncheck.services.bus.access import (
    DEFAULT_PARTITIONS,
    ROLES,
    TENANT_ROLES,
    TenantLimits,
    add_user,
    make_credentials,
    public_key,
    read_credentials,
    read_tenant_limits,
    rights_of,
    set_tenant_limits,
    write_server_files,
)
from zioncheck.services.bus.embedded import CREDENTIALS
from zioncheck.services.bus.topology import DEFAULT_TENANT

LOOPBACK_ROUTES = "127.0.0.1:6231,127.0.0.1:6232,127.0.0.1:6233"


def add(sub) -> None:
    p = sub.add_parser("credentials", help=words.CREDENTIALS_COMMAND_HELP,
                       description=words.CREDENTIALS_DESCRIPTION)
    folder, user = words.METAVAR_DIR, words.METAVAR_USER
    p.add_argument("--dir", default=str(CREDENTIALS), metavar=folder,
                   help=words.CREDENTIALS_DIR_HELP.format(default=CREDENTIALS))
    p.add_argument("--add", metavar=user, help=words.CREDENTIALS_ADD_HELP.format(user=user))
    p.add_argument("--role", choices=ROLES, help=words.CREDENTIALS_ROLE_HELP)
    p.add_argument("--tenant", metavar=words.METAVAR_TENANT,
                   help=words.CREDENTIALS_TENANT_HELP.format(default=DEFAULT_TENANT))
    p.add_argument("--deploy", metavar=folder, help=words.CREDENTIALS_DEPLOY_HELP.format(dir=folder))
    p.add_argument("--routes", default=LOOPBACK_ROUTES, metavar=words.METAVAR_ROUTES,
                   help=words.CREDENTIALS_ROUTES_HELP.format(default=LOOPBACK_ROUTES))
    p.add_argument("--partitions", type=whole, default=DEFAULT_PARTITIONS, metavar="P",
                   help=words.CREDENTIALS_PARTITIONS_HELP.format(default=DEFAULT_PARTITIONS))
    p.add_argument("--replicas", type=whole, default=1, choices=(1, 3, 5),
                   help=words.CREDENTIALS_REPLICAS_HELP)
    p.add_argument("--archive-key", action="store_true", help=words.CREDENTIALS_ARCHIVE_KEY_HELP)
    defaults = TenantLimits()
    p.add_argument("--max-connections", type=whole, metavar=words.METAVAR_N,
                   help=words.CREDENTIALS_MAX_CONNECTIONS_HELP.format(default=defaults.connections))
    p.add_argument("--max-subscriptions", type=whole, metavar=words.METAVAR_N,
                   help=words.CREDENTIALS_MAX_SUBSCRIPTIONS_HELP.format(default=defaults.subscriptions))
    p.add_argument("--max-payload", type=whole, metavar=words.METAVAR_N,
                   help=words.CREDENTIALS_MAX_PAYLOAD_HELP.format(default=defaults.payload))
    p.set_defaults(func=main)


def main(args) -> int:
    if args.archive_key:
        try:
            print(public_key(Path(args.dir)))
        except OSError as error:
            raise CommandFailed(words.CANNOT_READ.format(file=error.filename or args.dir,
                                                         reason=words.os_reason(error))) from None
        return 0
    if bool(args.add) != bool(args.role):
        raise CommandFailed(words.ADD_AND_ROLE)
    limits = dict(connections=args.max_connections, subscriptions=args.max_subscriptions, payload=args.max_payload)
    setting = any(value is not None for value in limits.values())
    if setting and not args.tenant:
        raise CommandFailed(words.LIMITS_NEED_TENANT)
    if args.tenant and args.role not in (*TENANT_ROLES, None) or args.tenant and not (args.add or setting):
        raise CommandFailed(words.TENANT_IS_FOR_TENANT_ROLES)
    folder = Path(args.deploy) / "credentials" if args.deploy else Path(args.dir)
    try:
        make_credentials(folder)
        if args.add:
            if args.add in read_credentials(folder):
                raise CommandFailed(words.LOGIN_EXISTS.format(user=args.add, folder=folder))
            add_user(folder, args.add, args.role, args.tenant)
        if setting:
            set_tenant_limits(folder, args.tenant, **limits)
        if args.deploy:
            routes = [route.strip() for route in args.routes.split(",") if route.strip()]
            for path in write_server_files(Path(args.deploy), routes, args.partitions, args.replicas):
                print(words.WROTE.format(file=path))
    except OSError as error:
        raise CommandFailed(words.CANNOT_WRITE.format(file=error.filename or folder,
                                                      reason=words.os_reason(error))) from None
    except ValueError as error:   # a name or a tenant services.bus.access refuses, in its own words
        raise CommandFailed(str(error)) from None
    print(words.LOGINS_IN.format(folder=folder))
    for user, credential in sorted(read_credentials(folder).items()):
        rights = rights_of(credential, args.partitions)
        tenant = " " + words.LOGIN_TENANT.format(tenant=credential.tenant) if credential.tenant else ""
        print(words.LOGIN_LINE.format(user=f"{user:<12}", role=f"{credential.role:<10}", tenant=tenant,
                                      file=folder / (user + ".json"), publish=len(rights.publish),
                                      subscribe=len(rights.subscribe) + 1))
    limits_of = read_tenant_limits(folder)
    for tenant in sorted({c.tenant for c in read_credentials(folder).values() if c.tenant} | set(limits_of)):
        held = limits_of.get(tenant, TenantLimits())
        print(words.TENANT_LIMITS_LINE.format(tenant=tenant, connections=held.connections,
                                              subscriptions=held.subscriptions, payload=held.payload))
    return 0
