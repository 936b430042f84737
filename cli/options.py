"""Options several subcommands share, declared once."""

CREDENTIALS_HELP = ("the folder of login files, one per user (default .zioncheck/credentials, made on first start "
                    "of the embedded server; `zioncheck credentials` lists and adds them)")


def add_bus(p, default: str = "start an embedded one") -> None:
    """Where NATS is and which logins to use."""
    p.add_argument("--nats-url", help=f"an existing NATS server or cluster, comma-separated (default: {default})")
    p.add_argument("--credentials", metavar="DIR", help=CREDENTIALS_HELP)
