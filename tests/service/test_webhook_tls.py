"""HTTPS webhooks are pinned: the worker connects to the address it checked, and the
certificate is still verified against the URL's host name. A real TLS server on
localhost with a certificate from a throwaway CA (made with the openssl command);
name resolution is the only thing replaced, to play a DNS-rebinding attacker."""

import json
import socket
import ssl
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.service.live import ALLOW_PRIVATE
from workers.notify import DeliveryFailed, deliver

HOST = "hooks.example"
REBOUND = "10.255.255.1"  # where the attacker's DNS points after the check: nothing answers


def _openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True)


@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    """A CA, and a server certificate for HOST signed by it (and one for another name)."""
    folder = tmp_path_factory.mktemp("tls")
    ca_key, ca = folder / "ca.key", folder / "ca.pem"
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
             "/CN=cardtrail test CA", "-keyout", str(ca_key), "-out", str(ca))  # fmt: skip
    made = {"ca": ca}
    for name in (HOST, "elsewhere.example"):
        key, request, cert = folder / f"{name}.key", folder / f"{name}.csr", folder / f"{name}.pem"
        extensions = folder / f"{name}.ext"
        extensions.write_text(f"subjectAltName=DNS:{name}\n")
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}",
                 "-keyout", str(key), "-out", str(request))  # fmt: skip
        _openssl("x509", "-req", "-in", str(request), "-CA", str(ca), "-CAkey", str(ca_key),
                 "-CAcreateserial", "-days", "2", "-extfile", str(extensions),
                 "-out", str(cert))  # fmt: skip
        made[name] = (cert, key)
    return made


class TLSReceiver:
    def __init__(self, cert, key) -> None:
        self.requests: list[dict] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append({"host": self.headers["Host"], "body": body})
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def rebinding_dns(monkeypatch):
    """HOST resolves to 127.0.0.1 once (the check), then to REBOUND."""
    real = socket.getaddrinfo
    answers = []

    def getaddrinfo(host, port, *args, **kwargs):
        if host != HOST:
            return real(host, port, *args, **kwargs)
        address = "127.0.0.1" if not answers else REBOUND
        answers.append(address)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setenv(ALLOW_PRIVATE, "1")  # the receiver is on localhost
    return answers


def test_an_https_delivery_goes_to_the_checked_address(certificates, rebinding_dns, monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(certificates["ca"]))  # trust the test CA
    receiver = TLSReceiver(*certificates[HOST])
    try:
        body = json.dumps({"kind": "your_turn"})
        assert deliver(f"https://{HOST}:{receiver.port}/hook", "secret", body) == 204
    finally:
        receiver.close()
    assert rebinding_dns == ["127.0.0.1"]  # resolved once, for the check, and never again
    assert receiver.requests == [{"host": f"{HOST}:{receiver.port}", "body": body.encode()}]


def test_the_certificate_must_still_name_the_host(certificates, rebinding_dns, monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(certificates["ca"]))
    receiver = TLSReceiver(*certificates["elsewhere.example"])
    try:
        with pytest.raises(ssl.SSLCertVerificationError):
            deliver(f"https://{HOST}:{receiver.port}/hook", "secret", "{}")
    finally:
        receiver.close()
    assert receiver.requests == []


def test_an_untrusted_certificate_is_refused(certificates, rebinding_dns):
    receiver = TLSReceiver(*certificates[HOST])  # the test CA is not trusted here
    try:
        with pytest.raises(ssl.SSLCertVerificationError):
            deliver(f"https://{HOST}:{receiver.port}/hook", "secret", "{}")
    finally:
        receiver.close()


def test_https_without_a_port_goes_to_443_and_an_ipv6_address_stays_whole(monkeypatch):
    monkeypatch.setenv(ALLOW_PRIVATE, "1")  # 2001:db8:: is the documentation range
    tried = []

    def create_connection(address, *args, **kwargs):
        tried.append(address)
        raise OSError("no route")

    monkeypatch.setattr(socket, "create_connection", create_connection)
    with pytest.raises(DeliveryFailed, match="no address could be reached"):
        deliver("https://[2001:db8::1]/hook", "secret", "{}")
    assert tried == [("2001:db8::1", 443)]


def test_an_unreachable_address_falls_through_to_the_next_checked_one(certificates, monkeypatch):
    """DNS answers two addresses; the first cannot be reached, the second gets the message."""
    monkeypatch.setenv(ALLOW_PRIVATE, "1")
    monkeypatch.setenv("SSL_CERT_FILE", str(certificates["ca"]))
    real_getaddrinfo, real_connect = socket.getaddrinfo, socket.create_connection

    def getaddrinfo(host, port, *args, **kwargs):
        if host != HOST:
            return real_getaddrinfo(host, port, *args, **kwargs)
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))
            for address in (REBOUND, "127.0.0.1")
        ]

    tried = []

    def create_connection(address, *args, **kwargs):
        tried.append(address[0])
        if address[0] == REBOUND:
            raise OSError("no route")
        return real_connect(address, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket, "create_connection", create_connection)
    receiver = TLSReceiver(*certificates[HOST])
    try:
        assert deliver(f"https://{HOST}:{receiver.port}/hook", "secret", "{}") == 204
    finally:
        receiver.close()
    assert tried == [REBOUND, "127.0.0.1"]
    assert len(receiver.requests) == 1
