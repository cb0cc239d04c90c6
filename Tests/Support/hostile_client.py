#!/usr/bin/env python3
"""Hostile and crowded HTTP clients for photodrop serve's tests and benchmark: many sockets from one process
(selectors, no thread per socket), from several loopback source addresses (127.0.0.0/8 is all this machine's).

  slowloris  N connections that send a partial request, then one header line every INTERVAL s (reconnecting when
             the server closes one, with --reconnect), for DURATION s. Prints one JSON line.
  trickle    one connection: a partial request (--body: complete headers of a large body), then one byte every
             INTERVAL s until the server closes it or DURATION passes. Prints when it was closed.
  streams    N event streams (GET /api/events with the token): prints "ready N" once all have their answer's
             headers, then waits until each has an 'event: change' (or TIMEOUT), optionally closing them all at once
             after --close-after s instead. Prints one JSON line.
  flood      N requests without a token, over C keep-alive connections, as fast as answers come. Prints one JSON line.
"""
import argparse
import json
import resource
import selectors
import socket
import sys
import time


def raise_open_files():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def connect(port, source):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((source, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    s.setblocking(False)
    return s


def slowloris(args):
    raise_open_files()
    sources = args.addresses.split(",")
    sel = selectors.DefaultSelector()
    opened = refused = closed_by_server = 0
    held_max = 0
    sockets = {}

    def open_one(index):
        nonlocal opened, refused
        try:
            s = connect(args.port, sources[index % len(sources)])
            s.send(b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow-0: ")
        except OSError:
            refused += 1
            return
        opened += 1
        sockets[s] = (index, time.time())
        sel.register(s, selectors.EVENT_READ)

    for index in range(args.connections):
        open_one(index)
    start = time.time()
    next_trickle = start + args.interval
    line = 0
    while time.time() - start < args.duration:
        held_max = max(held_max, len(sockets))
        timeout = max(0.0, min(next_trickle, start + args.duration) - time.time())
        for key, _ in sel.select(timeout=timeout):
            s = key.fileobj
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if not data:
                index, _ = sockets.pop(s)
                sel.unregister(s)
                s.close()
                closed_by_server += 1
                if args.reconnect:
                    open_one(index)
        if time.time() >= next_trickle:
            line += 1
            for s in list(sockets):
                try:
                    s.send(b"x\r\nX-Slow-%d: " % line)
                except OSError:
                    pass
            next_trickle += args.interval
    print(json.dumps({"opened": opened, "refused": refused, "held_max": held_max, "held_at_end": len(sockets),
                      "closed_by_server": closed_by_server}), flush=True)


def trickle(args):
    s = connect(args.port, args.address)
    if args.body:
        s.send(b"PUT %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Length: 1000000\r\n\r\n"
               % (args.path.encode(), args.token.encode()))
    else:
        s.send(b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    start = time.time()
    s.setblocking(True)
    s.settimeout(args.interval)
    answer = b""
    while time.time() - start < args.duration:
        try:
            data = s.recv(4096)
            if not data:
                print(json.dumps({"closed_after": round(time.time() - start, 1), "answer": answer.decode("latin-1")}),
                      flush=True)
                return
            answer += data
        except socket.timeout:
            pass
        except OSError:
            print(json.dumps({"closed_after": round(time.time() - start, 1), "answer": answer.decode("latin-1")}),
                  flush=True)
            return
        try:
            s.send(b"x" if args.body else b"X")
        except OSError:
            pass
    print(json.dumps({"closed_after": None, "answer": answer.decode("latin-1")}), flush=True)


def streams(args):
    raise_open_files()
    sources = args.addresses.split(",")
    sel = selectors.DefaultSelector()
    state = {}
    failed = 0
    for index in range(args.connections):
        try:
            s = connect(args.port, sources[index % len(sources)])
            s.send(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n\r\n"
                   % args.token.encode())
        except OSError:
            failed += 1
            continue
        state[s] = {"data": b"", "ready": False, "event": False}
        sel.register(s, selectors.EVENT_READ)
    deadline = time.time() + args.timeout
    announced = False
    closed_early = 0
    close_at = time.time() + args.close_after if args.close_after is not None else None
    while time.time() < deadline:
        if close_at is not None and time.time() >= close_at and announced:
            for s in list(state):
                sel.unregister(s)
                s.close()
            print(json.dumps({"opened": len(state), "failed": failed, "closed": True}), flush=True)
            return
        ready = sum(1 for v in state.values() if v["ready"])
        if not announced and ready + closed_early >= len(state):
            print("ready %d" % ready, flush=True)
            announced = True
        if announced and close_at is None and all(v["event"] for v in state.values()):
            break
        for key, _ in sel.select(timeout=0.2):
            s = key.fileobj
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if not data:
                sel.unregister(s)
                closed_early += 1
                continue
            entry = state[s]
            entry["data"] = (entry["data"] + data)[-4096:]
            if b"retry:" in entry["data"] or b" 200 " in entry["data"]:
                entry["ready"] = True
            if b"event: change" in entry["data"]:
                entry["event"] = True
    print(json.dumps({"opened": len(state), "failed": failed, "closed_early": closed_early,
                      "ready": sum(1 for v in state.values() if v["ready"]),
                      "events": sum(1 for v in state.values() if v["event"])}), flush=True)


def flood(args):
    sel = selectors.DefaultSelector()
    request = b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % args.path.encode()
    statuses = {}
    sent = answered = 0
    start = time.time()

    def open_one():
        nonlocal sent
        s = connect(args.port, "127.0.0.1")
        s.send(request)
        sent += 1
        sel.register(s, selectors.EVENT_READ, {"buffer": b""})

    for _ in range(args.connections):
        open_one()
    while answered < args.requests and time.time() - start < args.duration:
        for key, _ in sel.select(timeout=1):
            s = key.fileobj
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if not data:
                sel.unregister(s)
                s.close()
                if sent < args.requests:
                    open_one()
                continue
            buffer = key.data["buffer"] + data
            # Answers are small and have a Content-Length: count each complete one.
            while b"\r\n\r\n" in buffer:
                head, rest = buffer.split(b"\r\n\r\n", 1)
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                if len(rest) < length:
                    break
                status = head.split(b" ", 2)[1].decode()
                statuses[status] = statuses.get(status, 0) + 1
                answered += 1
                buffer = rest[length:]
                if b"\r\nconnection: close" in head.lower():
                    # The server closes after this answer (a refusal before any body): the next request goes on a
                    # new connection.
                    sel.unregister(s)
                    s.close()
                    if sent < args.requests:
                        open_one()
                    buffer = None
                    break
                if sent < args.requests:
                    s.send(request)
                    sent += 1
            if buffer is not None:
                key.data["buffer"] = buffer
    print(json.dumps({"sent": sent, "answered": answered, "statuses": statuses,
                      "seconds": round(time.time() - start, 2)}), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("slowloris")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--connections", type=int, default=1000)
    p.add_argument("--addresses", default="127.0.0.1")
    p.add_argument("--interval", type=float, default=5)
    p.add_argument("--duration", type=float, default=30)
    p.add_argument("--reconnect", action="store_true")
    p = commands.add_parser("trickle")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--address", default="127.0.0.1")
    p.add_argument("--interval", type=float, default=1)
    p.add_argument("--duration", type=float, default=40)
    p.add_argument("--body", action="store_true")
    p.add_argument("--path", default="/")
    p.add_argument("--token", default="")
    p = commands.add_parser("streams")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--connections", type=int, default=100)
    p.add_argument("--addresses", default="127.0.0.1")
    p.add_argument("--token", required=True)
    p.add_argument("--timeout", type=float, default=30)
    p.add_argument("--close-after", type=float, default=None)
    p = commands.add_parser("flood")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--requests", type=int, default=20000)
    p.add_argument("--connections", type=int, default=8)
    p.add_argument("--path", default="/api/albums")
    p.add_argument("--duration", type=float, default=60)
    args = parser.parse_args()
    {"slowloris": slowloris, "trickle": trickle, "streams": streams, "flood": flood}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
