import urllib.request

from controller.cli.serve import page_url, start_spectator_server


def test_local_server_serves_page_and_vendored_library() -> None:
    server = start_spectator_server("127.0.0.1", 0)
    try:
        port = server.server_address[1]
        for path, marker in (("index.html", b"vendor/mqtt.min.js"), ("vendor/mqtt.min.js", b"mqtt")):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/{path}", timeout=5) as resp:
                assert resp.status == 200 and marker in resp.read()
    finally:
        server.shutdown()
        server.server_close()
    assert page_url("h", 1, "ws://b:9", "t1") == "http://h:1/index.html?broker=ws%3A%2F%2Fb%3A9&table=t1"
